#!/usr/bin/env bash
# Writes an nginx configuration for graphd replicas from deploy/proxy/nginx.conf.in.
#
#   deploy/proxy/render-nginx-conf.sh LISTEN PREFIX REPLICA... > nginx.conf
#   e.g. render-nginx-conf.sh 0.0.0.0:8080 /var/lib/graphd-proxy graphd-0:50051 graphd-1:50051
#   nginx -p PREFIX -c "$PWD/nginx.conf" -g 'daemon off;'
# (NGINX_USER=NAME: the workers' user when nginx starts as root.)
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 LISTEN PREFIX REPLICA..." >&2
  exit 2
fi
listen=$1
prefix=$2
shift 2
servers=""
for r in "$@"; do
  case "$r" in
    *[!A-Za-z0-9.:_-]*) echo "$0: bad replica address: $r" >&2; exit 2 ;;
  esac
  servers+="server $r max_fails=1 fail_timeout=10s; "
done
# NGINX_USER: the user nginx's workers run as when it starts as root (its `user`
# directive; unset: nginx's default, nobody).
user=""
if [ -n "${NGINX_USER:-}" ]; then
  case "$NGINX_USER" in *[!A-Za-z0-9_-]*) echo "$0: bad NGINX_USER: $NGINX_USER" >&2; exit 2 ;; esac
  user="user $NGINX_USER;"
fi
mkdir -p "$prefix"
template="$(dirname "$0")/nginx.conf.in"
sed -e "s|@LISTEN@|$listen|g" -e "s|@PREFIX@|$prefix|g" -e "s|@SERVERS@|$servers|g" -e "s|@USER@|$user|g" "$template"
