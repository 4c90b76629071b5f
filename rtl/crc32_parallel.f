rtl/crc32_parallel.v
