#!/usr/bin/env bash
# `make image`: builds deploy/docker/Dockerfile into a local image with buildah, with no
# registry: the base (Debian 12 bookworm, minbase plus ca-certificates) is made here
# with mmdebstrap from the Debian mirror and imported as a local image once. Builds
# reuse the host's ccache (mounted at /ccache for the build stage). Prints the image's
# size at the end.
#
#   scripts/make-image.sh                 # -> localhost/graphd:latest
#   GRAPHD_IMAGE=localhost/graphd:dev scripts/make-image.sh
#
# buildah runs build steps with --isolation chroot: on these machines `podman run` and
# buildah's default (OCI runtime) isolation cannot set rlimits, chroot isolation works.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${GRAPHD_IMAGE:-localhost/graphd:latest}
# The base's recipe is below; its tag changes with it (a stale base is never reused).
BASE=${GRAPHD_IMAGE_BASE:-localhost/graphd-base:bookworm-slim-1}
MIRROR=${GRAPHD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${GRAPHD_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
CCACHE_HOST=${CCACHE_DIR:-$HOME/.cache/ccache}

for tool in buildah mmdebstrap; do
  if ! command -v "$tool" > /dev/null; then
    echo "make image: $tool is missing: GRAPHD_DEPS=image scripts/install-deps.sh installs it" >&2
    exit 1
  fi
done

if ! buildah inspect --type image "$BASE" > /dev/null 2>&1; then
  echo "== base image $BASE: a bookworm root file system from $MIRROR (mmdebstrap) =="
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # As Debian's -slim images: no manuals, documentation (copyrights kept) or translations.
  mmdebstrap --quiet --variant=minbase --include=ca-certificates \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    bookworm "$tmp/rootfs.tar" \
    "deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main" "deb $SECURITY bookworm-security main"
  ctr=$(buildah from scratch)
  buildah add --quiet "$ctr" "$tmp/rootfs.tar" / > /dev/null
  buildah config --cmd /bin/bash "$ctr"
  buildah commit --quiet "$ctr" "$BASE" > /dev/null
  buildah rm "$ctr" > /dev/null
fi

mkdir -p "$CCACHE_HOST"
echo "== $IMAGE from deploy/docker/Dockerfile (base $BASE) =="
start=$(date +%s)
# Docker's image format: OCI's has no HEALTHCHECK.
buildah bud --isolation chroot --layers --quiet --format docker \
  --build-arg BASE="$BASE" --build-arg BUILD_BASE="$BASE" \
  --volume "$CCACHE_HOST:/ccache" \
  -f deploy/docker/Dockerfile -t "$IMAGE" . > /dev/null
echo "built $IMAGE in $(( $(date +%s) - start )) s; size: $(buildah images --format '{{.Size}}' "$IMAGE" | head -1)"
