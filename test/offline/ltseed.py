#!/usr/bin/python3
# A seeder on IPv6 loopback for the offline-download tests (Debian python3-libtorrent): seeds one torrent from
# DATA_DIR (checked first), listening on [::1]:LISTEN_PORT only, no DHT/LSD/UPnP/NAT-PMP/trackers, and connects
# to the given peers itself, every second, until it is stopped (at most MAX_SECONDS). Transmission keeps one peer
# per address, so a second seeder on 127.0.0.1 may never reach it; this one reaches it as a distinct peer (::1).
# Usage: /usr/bin/python3 ltseed.py FILE.torrent DATA_DIR LISTEN_PORT PEER_PORT [MAX_SECONDS]
# Prints 'seeding' once the data is checked, then 'uploaded N' whenever N (bytes sent) changes.
import libtorrent as lt, sys, time
torrent, data, listen, peer = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
limit = float(sys.argv[5]) if len(sys.argv) > 5 else 300
s = lt.session({'enable_dht': False, 'enable_lsd': False, 'enable_upnp': False, 'enable_natpmp': False,
                'enable_outgoing_utp': False, 'enable_incoming_utp': False,
                'listen_interfaces': '[::1]:%d' % listen, 'alert_mask': 0})
p = lt.add_torrent_params(); p.ti = lt.torrent_info(torrent); p.save_path = data
h = s.add_torrent(p); t0 = time.time()
while time.time() - t0 < 60 and h.status().state != lt.torrent_status.seeding:
    time.sleep(0.05)
if h.status().state != lt.torrent_status.seeding:
    print('not seeding: the data does not match the torrent', flush=True); sys.exit(1)
print('seeding', flush=True)
sent = -1
while time.time() - t0 < limit:
    h.connect_peer(('::1', peer))
    up = h.status().total_payload_upload
    if up != sent:
        sent = up; print('uploaded %d' % up, flush=True)
    time.sleep(1)
