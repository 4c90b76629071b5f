rr_arbiter.v
