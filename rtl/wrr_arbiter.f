wrr_arbiter.v
