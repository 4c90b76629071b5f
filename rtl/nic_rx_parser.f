rtl/skid_buffer_width328.v
rtl/skid_buffer_width73.v
rtl/nic_rx_parser.v
