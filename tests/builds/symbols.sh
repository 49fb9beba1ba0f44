#!/bin/sh
# Only the public API is visible: every symbol libshorn.a defines for the
# linker starts with shorn_, and the loadable extension exports its two entry
# points alone.
#   symbols.sh LIBSHORN_A EXTENSION
set -u
library=$1 extension=$2
stray=$(nm -g --defined-only "$library" | awk 'NF == 3 && $3 !~ /^shorn_/ { print $3 }')
entries='sqlite3_shorn_init sqlite3_shornauto_init'
exported=$(nm -D --defined-only "$extension" | awk 'NF == 3 { print $3 }' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
public=$(nm -g --defined-only "$library" | awk 'NF == 3' | wc -l)
if [ -n "$stray" ] || [ "$exported" != "$entries" ] || [ "$public" -eq 0 ]; then
  [ -n "$stray" ] && echo "symbols: $library defines names without the shorn_ prefix:" $stray
  [ "$exported" != "$entries" ] && echo "symbols: $extension exports:" $exported
  [ "$public" -eq 0 ] && echo "symbols: $library defines nothing"
  exit 1
fi
echo "symbols: $library defines $public, all shorn_; $extension exports $entries alone"
