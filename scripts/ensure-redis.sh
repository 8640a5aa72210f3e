#!/usr/bin/env bash
# Make sure a Redis answers on 127.0.0.1:6379 (the arq worker tests need it).
set -euo pipefail
ping() { python3 - <<'PY'
import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", 6379), timeout=1)
    s.sendall(b"PING\r\n"); ok = s.recv(16).startswith(b"+PONG"); s.close()
except OSError:
    ok = False
sys.exit(0 if ok else 1)
PY
}
if ping; then exit 0; fi
if ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing redis-server (Debian package)…"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  else
    echo "redis-server is not installed; install it (e.g. apt-get install redis-server)" >&2
    exit 1
  fi
fi
mkdir -p /tmp/marginalia-redis
redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
  --dir /tmp/marginalia-redis --logfile /tmp/marginalia-redis/redis.log
for _ in $(seq 1 50); do ping && exit 0; sleep 0.1; done
echo "redis did not start; see /tmp/marginalia-redis/redis.log" >&2
exit 1
