rr_arbiter_n2.v
skid_buffer_width90.v
skid_buffer_width72.v
nic_axi_rd_mux.v
