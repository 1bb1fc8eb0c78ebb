#!/bin/sh
# The entry point of the postgres image (Dockerfile, target postgres): PostgreSQL from Debian's package,
# configured as the official image is, by POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD and PGDATA, so the
# chart's in-cluster PostgreSQL runs on it unchanged. An empty PGDATA is initialised once; a PGDATA that
# holds a cluster (a restarted pod on its volume) is started as it is.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
SOCKETS=/var/run/postgresql
# Every start: a volume's fsGroup (Kubernetes) opens the folder to the group, which PostgreSQL refuses.
mkdir -p "$PGDATA"
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set to initialise a new database}"
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -c unix_socket_directories=$SOCKETS" start
  if [ "$POSTGRES_DB" != postgres ]; then
    psql -v ON_ERROR_STOP=1 -h "$SOCKETS" -U "$POSTGRES_USER" -d postgres \
      -c "create database \"$POSTGRES_DB\""
  fi
  pg_ctl -D "$PGDATA" -w -m fast stop
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories="$SOCKETS"
