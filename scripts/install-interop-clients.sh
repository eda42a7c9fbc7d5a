#!/usr/bin/env bash
# Installs the gRPC client stacks of the interop matrix (GrpcInteropIT) from Debian's packages: Python and Ruby on
# gRPC C-core, grpc-go (built in GOPATH mode from Debian's sources), protoc and its Go plugins, Node.js and npm; and
# the front ends put before the REST API (FrontEndsIT): nginx, HAProxy, ApacheBench (apache2-utils); the headless
# browser of the in-flight page's test (chromium, chromium-driver); promtool (prometheus) for the alert rules' tests.
# Node's grpc-js comes from npm when the test runs (npm ci, from src/test/interop/node/package-lock.json).
# Needs root (or sudo) when something is missing; does nothing when all is there.
set -euo pipefail
PACKAGES=(python3-grpcio python3-grpc-tools ruby-grpc ruby-grpc-tools golang-go golang-google-grpc-dev
          golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc
          protobuf-compiler nginx haproxy apache2-utils chromium chromium-driver prometheus)
installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}
missing=()
for p in "${PACKAGES[@]}"; do
  installed "$p" || missing+=("$p")
done
# Node.js from NodeSource bundles npm; Debian's nodejs does not, and its npm package conflicts with NodeSource's
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
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
