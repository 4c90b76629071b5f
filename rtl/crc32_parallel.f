crc32_parallel.v
