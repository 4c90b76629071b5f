nic_completion.v
