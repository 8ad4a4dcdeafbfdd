#!/bin/sh
# Installs PgBouncer from Debian's packages, for `npm run bench -- --pooled` only (npm start and npm test never need it).
# The bench runs it itself, as its own process on a free loopback port; the package's system service is left stopped.
set -eu
if command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq pgbouncer
# The package starts a service on port 6432; the bench does not use it.
$SUDO service pgbouncer stop >/dev/null 2>&1 || true
