#!/bin/sh
# Only the public API is visible: every symbol libshorn.a defines for the
# linker starts with shorn_, and the loadable extension exports its entry
# point alone.
#   symbols.sh LIBSHORN_A EXTENSION
set -u
library=$1 extension=$2
stray=$(nm -g --defined-only "$library" | awk 'NF == 3 && $3 !~ /^shorn_/ { print $3 }')
exported=$(nm -D --defined-only "$extension" | awk 'NF == 3 { print $3 }')
public=$(nm -g --defined-only "$library" | awk 'NF == 3' | wc -l)
if [ -n "$stray" ] || [ "$exported" != sqlite3_shorn_init ] || [ "$public" -eq 0 ]; then
  [ -n "$stray" ] && echo "symbols: $library defines names without the shorn_ prefix:" $stray
  [ "$exported" != sqlite3_shorn_init ] && echo "symbols: $extension exports:" $exported
  [ "$public" -eq 0 ] && echo "symbols: $library defines nothing"
  exit 1
fi
echo "symbols: $library defines $public, all shorn_; $extension exports sqlite3_shorn_init alone"
