rtl/skid_buffer_width67.v
rtl/rr_arbiter_n2.v
rtl/nic_tlb.v
