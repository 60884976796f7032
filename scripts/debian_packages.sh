#!/usr/bin/env bash
# Install the Debian packages named as arguments that are not installed yet (one apt-get
# run; nothing at all when every one is there). Used by run.sh (tesseract-ocr, for OCR of
# scanned PDF pages and images) and test.sh (also chromium, which the browser tests drive).
set -euo pipefail
missing=()
for package in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "== apt-get install ${missing[*]}"
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
apt_log=$(mktemp)
if ! { $sudo apt-get update -qq &&
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
} >"$apt_log" 2>&1; then
  cat "$apt_log" >&2; exit 1
fi
rm -f "$apt_log"
