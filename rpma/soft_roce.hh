// SPDX-License-Identifier: BSD-3-Clause
// soft_roce.hh -- telling Soft-RoCE (rxe) apart: the vendor id its devices
// report (ibv_device_attr::vendor_id). The library and the engines warn
// about rxe's defects that bite their users (docs/platforms.md, "Known
// defects and their workarounds").
#ifndef RPMA_SOFT_ROCE_HH
#define RPMA_SOFT_ROCE_HH

#include <cstdint>

namespace rpma {

constexpr uint32_t SOFT_ROCE_VENDOR_ID = 0xffffff;

} // namespace rpma

#endif // RPMA_SOFT_ROCE_HH
