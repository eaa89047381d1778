#!/bin/sh
# Single-node throwaway Ceph RGW (real S3 API) on 127.0.0.1:$PORT, in-memory OSD, no cephx.
# Project copy of ../shared/tools/ceph-s3.sh (verified recipe), adapted for the test helper
# test/support/ceph.ts: the monitor listens on PORT+1; on failure every daemon started so far is
# killed; the S3 user is TESTKEY/TESTSECRET.
# Usage: ceph-s3.sh DIR [PORT]     Stop: kill $(cat DIR/run/rgw.pid DIR/run/osd.pid DIR/run/mon.pid)
# Needs: apt-get install -y --no-install-recommends radosgw ceph-mon ceph-osd ceph-common
set -e
D=$(realpath -m "$1"); PORT=${2:-17480}; MONPORT=$((PORT + 1))
cleanup_on_error() {
  rc=$?
  if [ $rc -ne 0 ]; then
    for f in "$D"/run/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null || true; done
  fi
  exit $rc
}
trap cleanup_on_error EXIT
rm -rf "$D"; mkdir -p "$D/mon" "$D/osd0" "$D/run" "$D/log"
FSID=$(cat /proc/sys/kernel/random/uuid)
cat > "$D/ceph.conf" <<CONF
[global]
fsid = $FSID
mon host = v2:127.0.0.1:$MONPORT
public network = 127.0.0.0/8
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc secure
ms client mode = crc secure
osd objectstore = memstore
memstore device bytes = 2147483648
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd pool default pg num = 8
osd pool default pgp num = 8
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
run dir = $D/run
admin socket = $D/run/\$name.asok
log file = $D/log/\$name.log
[mon.a]
mon data = $D/mon
[osd.0]
osd data = $D/osd0
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$PORT
CONF
C="-c $D/ceph.conf"
monmaptool --create --fsid "$FSID" --addv a "[v2:127.0.0.1:$MONPORT]" "$D/monmap" >/dev/null
ceph-mon $C --mkfs -i a --monmap "$D/monmap"
ceph-mon $C -i a --pid-file "$D/run/mon.pid"
ceph $C osd create >/dev/null
ceph-osd $C -i 0 --mkfs 2>/dev/null
ceph $C osd crush add-bucket localhost host >/dev/null 2>&1
ceph $C osd crush move localhost root=default >/dev/null 2>&1
ceph $C osd crush add osd.0 1.0 host=localhost >/dev/null 2>&1
ceph-osd $C -i 0 --pid-file "$D/run/osd.pid" 2>/dev/null
radosgw $C -n client.rgw.a --pid-file "$D/run/rgw.pid"
i=0; until ss -ltn | grep -q "127.0.0.1:$PORT "; do i=$((i+1)); [ $i -gt 120 ] && { echo "rgw did not start" >&2; exit 1; }; sleep 0.5; done
radosgw-admin $C user create --uid=test --display-name=test --access-key=TESTKEY --secret=TESTSECRET >/dev/null
echo "S3 at http://127.0.0.1:$PORT  key TESTKEY secret TESTSECRET"
