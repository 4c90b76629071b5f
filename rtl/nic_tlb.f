rtl/rr_arbiter_n3.v
rtl/rr_arbiter_n2.v
rtl/nic_tlb.v
