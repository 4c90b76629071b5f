rtl/rr_arbiter_n2.v
rtl/skid_buffer_width90.v
rtl/skid_buffer_width72.v
rtl/nic_axi_rd_mux.v
