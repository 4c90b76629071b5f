rtl/sync_bits.v
