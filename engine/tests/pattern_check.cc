// SPDX-License-Identifier: BSD-3-Clause
// pattern_check PATH OFFSET LENGTH 0xPATTERN -- exits 0 if bytes
// [OFFSET, OFFSET + LENGTH) of PATH hold PATTERN repeated, as fio's
// buffer_pattern= writes it. PATH may be a Device DAX, which only mmap can
// read: the mapping is aligned to 2 MiB, a Device DAX's usual alignment.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char *argv[])
{
	if (argc != 5) {
		std::fprintf(stderr, "usage: %s PATH OFFSET LENGTH 0xPATTERN\n", argv[0]);
		return 2;
	}
	const size_t offset = std::strtoull(argv[2], nullptr, 0);
	const size_t length = std::strtoull(argv[3], nullptr, 0);
	std::string hex = argv[4];
	if (hex.rfind("0x", 0) != 0 || hex.size() < 4 || hex.size() % 2) {
		std::fprintf(stderr, "pattern: 0x and an even number of hex digits\n");
		return 2;
	}
	std::vector<unsigned char> pattern;
	for (size_t i = 2; i < hex.size(); i += 2)
		pattern.push_back(std::stoul(hex.substr(i, 2), nullptr, 16));

	const size_t align = 2 << 20;
	const size_t start = offset / align * align;
	const size_t span = (offset + length - start + align - 1) / align * align;
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		std::perror(argv[1]);
		return 2;
	}
	void *map = mmap(nullptr, span, PROT_READ, MAP_SHARED, fd, start);
	if (map == MAP_FAILED) {
		std::perror("mmap");
		return 2;
	}
	const unsigned char *p = static_cast<unsigned char *>(map) + (offset - start);
	for (size_t i = 0; i < length; i++) {
		if (p[i] != pattern[i % pattern.size()]) {
			std::fprintf(stderr, "%s: byte %zu is 0x%02x, not 0x%02x\n", argv[1],
				     offset + i, p[i], pattern[i % pattern.size()]);
			return 1;
		}
	}
	return 0;
}
