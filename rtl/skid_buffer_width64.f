rtl/skid_buffer_width64.v
