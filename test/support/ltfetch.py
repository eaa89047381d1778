#!/usr/bin/python3
# Download a torrent with libtorrent (Debian python3-libtorrent) from its web seeds alone: no DHT,
# LSD, UPnP or trackers reached (listen on loopback only). Then libtorrent re-checks every piece.
# Usage: /usr/bin/python3 ltfetch.py FILE.torrent SAVE_DIR  -> prints 'fetched N / M OK|BAD web_seeds=K'
import libtorrent as lt, sys, time
s = lt.session({'enable_dht': False, 'enable_lsd': False, 'enable_upnp': False, 'enable_natpmp': False,
                'listen_interfaces': '127.0.0.1:0', 'alert_mask': 0})
ti = lt.torrent_info(sys.argv[1])
p = lt.add_torrent_params(); p.ti = ti; p.save_path = sys.argv[2]
h = s.add_torrent(p); t0 = time.time()
while time.time() - t0 < 90:
    st = h.status()
    if st.state in (lt.torrent_status.seeding, lt.torrent_status.finished): break
    time.sleep(0.1)
h.force_recheck(); t1 = time.time()
while time.time() - t1 < 30:
    st = h.status()
    if st.state not in (lt.torrent_status.checking_files, lt.torrent_status.checking_resume_data) and time.time() - t1 > 0.3: break
    time.sleep(0.05)
st = h.status()
print('fetched', sum(st.pieces), '/', len(st.pieces), 'OK' if len(st.pieces) > 0 and all(st.pieces) else 'BAD', 'web_seeds=%d' % len(ti.web_seeds()))
