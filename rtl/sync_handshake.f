rtl/sync_handshake.v
