# Sourced by the tests that check a binary's CPU: machine FILE prints
# x86-64 or aarch64 from its ELF or PE header (or what it found instead).

# Little-endian unsigned integer of `count` bytes at `offset` of a file.
read_le() {
  od -An -t u1 -j "$2" -N "$3" "$1" | awk '{ for (i = NF; i >= 1; i--) v = v * 256 + $i } END { print v + 0 }'
}

machine() {
  magic=$(od -An -c -N 4 "$1" | tr -d ' ')
  case $magic in
    177ELF) m=$(read_le "$1" 18 2) ;;
    MZ*) m=$(read_le "$1" $(($(read_le "$1" 60 4) + 4)) 2) ;;
    *) echo unknown; return ;;
  esac
  case $m in 62 | 34404) echo x86-64 ;; 183) echo aarch64 ;; *) echo "machine $m" ;; esac
}
