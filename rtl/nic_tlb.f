skid_buffer_width67.v
rr_arbiter_n2.v
nic_tlb.v
