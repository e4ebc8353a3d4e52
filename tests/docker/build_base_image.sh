#!/usr/bin/env bash
# Builds the smoke image's base, `openclaw-mcp-base:bookworm`, from Debian packages only (no container
# registry is needed): debootstrap a minimal Debian bookworm into a temporary directory, then import that
# file tree as an image. A no-op when the tag exists already (pass --force to rebuild).
#
#   sudo bash tests/docker/build_base_image.sh [--force]
#
# Needs root, debootstrap and a running Docker engine (apt-get install -y docker.io debootstrap; dockerd).
# Environment: BASE_IMAGE (tag, default openclaw-mcp-base:bookworm), DEBIAN_SUITE (default bookworm),
# DEBIAN_MIRROR (default http://deb.debian.org/debian), BASE_WORKDIR (parent of the temporary dir,
# default /var/tmp). Takes 1-4 minutes; the image is ~130 MB.
set -euo pipefail
tag=${BASE_IMAGE:-openclaw-mcp-base:bookworm}
suite=${DEBIAN_SUITE:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
force=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    *) echo "usage: $0 [--force]" >&2; exit 2 ;;
  esac
done
if [[ $force == 0 ]] && docker image inspect "$tag" >/dev/null 2>&1; then
  echo "build_base_image: $tag exists (cached; --force rebuilds it)"
  exit 0
fi
for tool in debootstrap docker tar; do
  command -v "$tool" >/dev/null || { echo "build_base_image: $tool is not installed" >&2; exit 2; }
done
if [[ $(id -u) != 0 ]]; then
  echo "build_base_image: debootstrap needs root" >&2
  exit 2
fi
case "$(dpkg --print-architecture 2>/dev/null || uname -m)" in
  amd64|x86_64) arch=amd64 ;;
  arm64|aarch64) arch=arm64 ;;
  *) echo "build_base_image: unsupported architecture" >&2; exit 2 ;;
esac
work=$(mktemp -d "${BASE_WORKDIR:-/var/tmp}/openclaw-mcp-base.XXXXXX")
cleanup() { rm -rf --one-file-system "$work"; }
trap cleanup EXIT
root="$work/rootfs"
echo "build_base_image: debootstrap --variant=minbase $suite ($arch) from $mirror"
debootstrap --variant=minbase --arch="$arch" "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 40 "$work/debootstrap.log" >&2
  exit 1
}
# apt sources: the release, its updates and security fixes (debootstrap only writes the first).
security=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
EOF
# Container hygiene: no package caches, no man pages or docs, no service starts during apt installs.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
cat >"$root/usr/sbin/policy-rc.d" <<'EOF'
#!/bin/sh
exit 101
EOF
chmod 0755 "$root/usr/sbin/policy-rc.d"
cat >"$root/etc/dpkg/dpkg.cfg.d/01-container-nodoc" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
EOF
cat >"$root/etc/apt/apt.conf.d/01-container-clean" <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
EOF
echo "build_base_image: importing as $tag"
tar --numeric-owner -C "$root" -c . | docker import \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["/bin/bash"]' \
  - "$tag" >/dev/null
docker image inspect --format 'build_base_image: {{.RepoTags}} {{.Size}} bytes' "$tag"
