// SPDX-License-Identifier: BSD-3-Clause
// Getters and setters of the atomic configuration fields. A setter holds the
// object's mutex so that its values() copy never falls between two setters.
#ifndef RPMA_C_CFG_HH
#define RPMA_C_CFG_HH

#include <mutex>

#include "api.hh"

namespace rpma::c {

template <typename Handle, typename Object, typename T, typename Value>
int set_field(Handle *cfg, std::atomic<T> Object::*field, Value value) noexcept
{
	if (!cfg)
		return RPMA_E_INVAL;
	Object &object = *impl(cfg);
	const std::lock_guard lock(object.mutex);
	(object.*field).store(static_cast<T>(value));
	return 0;
}

template <typename Handle, typename Object, typename T, typename Value>
int get_field(const Handle *cfg, std::atomic<T> Object::*field, Value *value) noexcept
{
	if (!cfg || !value)
		return RPMA_E_INVAL;
	*value = static_cast<Value>((impl(cfg)->*field).load());
	return 0;
}

} // namespace rpma::c

#endif
