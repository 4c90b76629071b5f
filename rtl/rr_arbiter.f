rtl/rr_arbiter.v
