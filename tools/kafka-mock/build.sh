#!/usr/bin/env bash
# Builds tools/kafka-mock/build/kafka-mock: a Kafka-protocol broker for tests, made of librdkafka's
# built-in mock cluster. No real Kafka >= 0.10 installs on the build machines (see
# shared notes, infra-facts "Kafka"), and Debian's librdkafka 2.0.2 mock breaks with a second group
# member and with the idempotent producer, so we build librdkafka 2.x from the source that ships
# inside the @confluentinc/kafka-javascript npm tarball (the only registry reachable here).
# Idempotent: does nothing when the binary already exists (delete tools/kafka-mock/build to rebuild).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$HERE/build"
BIN="$BUILD/kafka-mock"
PKG="@confluentinc/kafka-javascript@1.10.1"
JOBS="${KAFKA_MOCK_JOBS:-2}"

if [[ -x "$BIN" ]]; then
  echo "kafka-mock: $BIN already built"
  exit 0
fi

need_apt=()
for pkg in build-essential zlib1g-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if ((${#need_apt[@]})); then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
    echo "kafka-mock: installing ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need_apt[@]}"
  else
    echo "kafka-mock: missing ${need_apt[*]} (install them, then rerun)" >&2
    exit 1
  fi
fi

mkdir -p "$BUILD"
cd "$BUILD"

SRC="$BUILD/librdkafka"
if [[ ! -f "$SRC/configure" ]]; then
  tarball="$(ls confluentinc-kafka-javascript-*.tgz 2>/dev/null | head -n1 || true)"
  if [[ -z "$tarball" ]]; then
    echo "kafka-mock: fetching $PKG"
    tarball="$(npm pack "$PKG" --silent | tail -n1)"
  fi
  rm -rf package "$SRC"
  tar -xzf "$tarball" package/deps/librdkafka
  mv package/deps/librdkafka "$SRC"
  rm -rf package
fi

LIB="$SRC/src/librdkafka.a"
if [[ ! -f "$LIB" ]]; then
  echo "kafka-mock: building librdkafka (about a minute on 2 cores)"
  (
    cd "$SRC"
    ./configure --disable-ssl --disable-gssapi --disable-sasl --disable-curl --disable-zstd \
      --disable-lz4-ext --enable-static >"$BUILD/configure.log" 2>&1
    make libs -j"$JOBS" >"$BUILD/make.log" 2>&1
  ) || { echo "kafka-mock: librdkafka build failed, see $BUILD/configure.log and $BUILD/make.log" >&2; exit 1; }
fi

# The headers live in src/ and are included as <librdkafka/...>, so expose them under that name.
mkdir -p "$BUILD/include"
ln -sfn "$SRC/src" "$BUILD/include/librdkafka"

cc -O2 -Wall -o "$BIN.tmp" "$HERE/kafka-mock.c" -I"$BUILD/include" "$LIB" -lpthread -lz -lm -ldl -lrt
mv "$BIN.tmp" "$BIN"
echo "kafka-mock: built $BIN"
