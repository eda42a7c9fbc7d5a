#!/usr/bin/env bash
# Installs the gRPC client stacks of the interop matrix (GrpcInteropIT) from Debian's packages: Python and Ruby on
# gRPC C-core, grpc-go (built in GOPATH mode from Debian's sources), protoc and its Go plugins. Node's grpc-js comes
# from npm when the test runs (npm ci, from src/test/interop/node/package-lock.json). Needs root (or sudo).
set -euo pipefail
PACKAGES=(python3-grpcio python3-grpc-tools ruby-grpc ruby-grpc-tools golang-go golang-google-grpc-dev
          golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc
          protobuf-compiler nodejs)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
