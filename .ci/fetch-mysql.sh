#!/usr/bin/env bash
# Fetches a private MySQL server (Debian's mysql-server-core, 8.x/9.x) for the tests of the MySQL source,
# without installing anything system-wide, and prints its home directory (the last line on stdout).
#
#   home="$(.ci/fetch-mysql.sh)" && mvn ... -Dsluice.test.mysql.home="$home"     (or SLUICE_MYSQL_HOME="$home")
#
# Debian 12 packages no MySQL server (only MariaDB), and Debian unstable's needs a newer libc and libstdc++
# than the machine's. So this downloads mysql-server-core and everything it depends on (libc6 and the
# dynamic loader included) from Debian unstable's pool, checks each .deb against the SHA-256 in the signed
# index, and unpacks them with `dpkg-deb -x` into ${cache}/mysql-<version>/ — a private root that
# io.sluice.runtime.db.EmbeddedMySql runs through its own loader:
#   <home>/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path <home>/usr/lib/x86_64-linux-gnu <home>/usr/sbin/mysqld
# The machine's libc and its packages stay untouched.
#
# Idempotent: a complete home already in the cache is reused without any download (the newest one, or the
# one matching SLUICE_MYSQL_VERSION); --refresh fetches what unstable has now. About 50 MB to download,
# 260 MB unpacked.
#
# Environment:
#   SLUICE_MYSQL_CACHE    cache directory (default ${XDG_CACHE_HOME:-$HOME/.cache}/sluice)
#   SLUICE_MYSQL_VERSION  a version prefix the server must have, e.g. 9.7 or 8.4 (default: any)
#   SLUICE_DEBIAN_MIRROR  Debian mirror (default http://deb.debian.org/debian)
#   SLUICE_DEBIAN_SUITE   suite to take the server from (default sid)
set -euo pipefail

package="mysql-server-core"
mirror="${SLUICE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite="${SLUICE_DEBIAN_SUITE:-sid}"
cache="${SLUICE_MYSQL_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/sluice}"
want="${SLUICE_MYSQL_VERSION:-}"
refresh=false
# Depended on by the packages, but not needed to run mysqld: Perl is for helper scripts, the rest for dpkg.
skip=" perl perl-base perl-modules debconf debconf-2.0 dpkg libc-bin adduser passwd lsb-base init-system-helpers "

die() { echo "fetch-mysql: $*" >&2; exit 1; }
say() { echo "fetch-mysql: $*" >&2; }

for arg in "$@"; do
  case "$arg" in
    --refresh) refresh=true ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 0 ;;
    *) die "unknown argument '$arg' (only --refresh)" ;;
  esac
done

[[ "$(uname -m)" == "x86_64" ]] || die "only x86_64 (amd64) is supported, this machine is $(uname -m)"
for tool in curl xz dpkg-deb sha256sum awk; do
  command -v "$tool" >/dev/null 2>&1 || die "needs '$tool' (apt-get install -y curl xz-utils dpkg coreutils gawk)"
done

# A home is complete when it has the marker this script writes last.
newest_cached() {
  local dir best=""
  for dir in $(ls -d "$cache"/mysql-"$want"* 2>/dev/null | sort -V); do
    [[ -f "$dir/.complete" ]] && best="$dir"
  done
  [[ -n "$best" ]] && (cd "$best" && pwd)
}

if ! $refresh; then
  if home="$(newest_cached)" && [[ -n "$home" ]]; then
    say "using cached $home"
    echo "$home"
    exit 0
  fi
fi

mkdir -p "$cache" || die "cannot create cache directory $cache"
work="$(mktemp -d "$cache/.fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT

index_url="$mirror/dists/$suite/main/binary-amd64/Packages.xz"
say "reading $index_url"
curl -fsSL --retry 3 --connect-timeout 20 -o "$work/Packages.xz" "$index_url" \
  || die "cannot download $index_url (is deb.debian.org reachable?)"
xz -dc "$work/Packages.xz" > "$work/Packages" || die "corrupt index $index_url"

# One line per package: name, version, filename, sha256, size, pre-depends+depends, provides, separated by
# US (0x1f): unlike a tab, a non-blank separator keeps empty fields when read splits the line.
awk -v OFS=$'\x1f' '
  function flush() { if (p != "") print p, v, f, s, z, d, pv; p = v = f = s = z = d = pv = "" }
  /^$/                { flush(); next }
  /^Package: /        { p = $2; next }
  /^Version: /        { v = $2; next }
  /^Filename: /       { f = $2; next }
  /^SHA256: /         { s = $2; next }
  /^Size: /           { z = $2; next }
  /^(Pre-)?Depends: / { sub(/^[^:]*: /, ""); d = (d == "" ? $0 : d ", " $0); next }
  /^Provides: /       { sub(/^Provides: /, ""); pv = $0; next }
  END                 { flush() }
' "$work/Packages" > "$work/index.tsv"

declare -A version filename sha size deps provider
while IFS=$'\x1f' read -r name ver file sum bytes dep prov; do
  version[$name]="$ver"; filename[$name]="$file"; sha[$name]="$sum"; size[$name]="$bytes"; deps[$name]="$dep"
  if [[ -n "$prov" ]]; then
    IFS=',' read -ra provided <<<"$prov"
    for p in "${provided[@]}"; do
      p="${p#"${p%%[![:space:]]*}"}"; p="${p%% *}"
      [[ -n "$p" && -z "${provider[$p]:-}" ]] && provider[$p]="$name"
    done
  fi
done < "$work/index.tsv"

[[ -n "${version[$package]:-}" ]] || die "$suite has no package $package"
server_version="${version[$package]}"
upstream="${server_version#*:}"; upstream="${upstream%%-*}"
[[ "$upstream" == "$want"* ]] || die "$suite has $package $server_version, not the wanted $want (SLUICE_MYSQL_VERSION)"
case "$upstream" in 8.*|9.*|1[0-9].*) ;; *) die "$package in $suite is $server_version, not MySQL 8 or later" ;; esac
home="$cache/mysql-$upstream"
if ! $refresh && [[ -f "$home/.complete" ]]; then
  say "using cached $home"; echo "$home"; exit 0
fi

# The dependency closure, first alternative of each "a | b", virtual names through their provider.
declare -A chosen
order=()
queue=("$package")
while ((${#queue[@]} > 0)); do
  name="${queue[0]}"; queue=("${queue[@]:1}")
  [[ "$skip" == *" $name "* || -n "${chosen[$name]:-}" ]] && continue
  if [[ -z "${version[$name]:-}" ]]; then
    real="${provider[$name]:-}"
    [[ -n "$real" ]] || die "$suite has nothing that provides '$name' (needed for $package)"
    name="$real"
    [[ "$skip" == *" $name "* || -n "${chosen[$name]:-}" ]] && continue
  fi
  chosen[$name]=1; order+=("$name")
  IFS=',' read -ra needed <<<"${deps[$name]}"
  for dep in "${needed[@]}"; do
    dep="${dep%%|*}"; dep="${dep#"${dep%%[![:space:]]*}"}"; dep="${dep%% *}"; dep="${dep%%:*}"
    [[ -n "$dep" ]] && queue+=("$dep")
  done
done

total=0
for name in "${order[@]}"; do total=$((total + size[$name])); done
say "$package $server_version: ${#order[@]} packages, $((total / 1024 / 1024)) MB to download"

mkdir -p "$work/debs" "$work/root"
started=$SECONDS
for name in "${order[@]}"; do echo "$mirror/${filename[$name]}"; done \
  | (cd "$work/debs" && xargs -n 1 -P 8 curl -fsSL --retry 3 --connect-timeout 20 -O) \
  || die "a download from $mirror failed (unstable moves fast: run again to pick up the new index)"
for name in "${order[@]}"; do
  deb="$work/debs/${filename[$name]##*/}"
  echo "${sha[$name]}  $deb" | sha256sum -c --quiet - >/dev/null 2>&1 \
    || die "checksum mismatch for ${filename[$name]}"
  dpkg-deb -x "$deb" "$work/root" || die "cannot unpack $deb"
done
say "downloaded and unpacked in $((SECONDS - started)) s"
rm -rf "$work/root/usr/share/doc" "$work/root/usr/share/man" "$work/root/usr/share/lintian" "$work/debs"

loader="$work/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
libs="$work/root/usr/lib/x86_64-linux-gnu"
mysqld="$work/root/usr/sbin/mysqld"
[[ -x "$loader" && -x "$mysqld" ]] || die "the unpacked packages lack $loader or $mysqld"
reported="$("$loader" --library-path "$libs" "$mysqld" --version 2>&1)" \
  || die "the unpacked mysqld does not run on this machine: $reported"
say "$reported"

{
  echo "# $package $server_version from $mirror $suite, fetched $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for name in "${order[@]}"; do echo "$name ${version[$name]}"; done
} > "$work/root/PACKAGES"

# Replace atomically-enough: move the old one aside, the new one in, and only then mark it complete.
if [[ -e "$home" ]]; then
  mv "$home" "$work/old"
fi
mv "$work/root" "$home"
echo "$server_version" > "$home/.complete"
say "MySQL $server_version is in $home"
echo "$home"
