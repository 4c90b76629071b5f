rtl/nic_completion.v
