# test_debug_symbols.sh BUILD_DIR - C frames named from separate debug files
# (src/symbols/): libc is stripped (no .symtab), its internal functions are named only
# from its debug file (Debian's libc6-dbg, found by build id). Names are checked against
# readelf's reading of the files: random libc functions absent from .dynsym, random
# exported ones, gaps between functions ("libc.so.6+0x..."); the .gnu_debuglink route with
# a library built here (debug file beside it, in .debug/, with a wrong CRC, missing); and
# the agent's own output for glibc's resolver (its nscd socket) under a socket tracepoint.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..11"
NAMES=$BUILD/tests/tools/c_names
LIBC=$(ldd "$NAMES" | awk '$1 ~ /^libc\.so/ {print $3}')
ID=$(readelf -n "$LIBC" | sed -n 's/.*Build ID: *//p')
DBG=/usr/lib/debug/.build-id/${ID:0:2}/${ID:2}.debug
check "libc's debug file $DBG is installed (libc6-dbg)" [ -n "$ID" -a -f "$DBG" ]

# pick SEED LIB DEBUG: "offset expected-name kind" lines from readelf's symbol tables: 20
# internal functions (in DEBUG's .symtab, not in LIB's .dynsym), 10 exported ones, each
# alone at its address and overlapping no other, asked at its middle; and 5 gaps between
# functions, which must give LIB's file name + the offset (LIB's first segment is at 0).
pick() {
  python3 - "$@" <<'PY'
import random, subprocess, sys
seed, lib, dbg = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def funcs(path, table):
    out, on = [], False
    text = subprocess.run(["readelf", "-W", "--syms", path], capture_output=True,
                          text=True).stdout
    for line in text.splitlines():
        if line.startswith("Symbol table"):
            on = "'%s'" % table in line
            continue
        f = line.split()
        if on and len(f) >= 8 and f[3] in ("FUNC", "IFUNC") and f[6] != "UND" and int(f[1], 16):
            out.append((int(f[1], 16), int(f[2], 0), f[7].split("@")[0]))
    return out
dyn, full = funcs(lib, ".dynsym"), funcs(dbg, ".symtab")
exported = {n for _, _, n in dyn}
names, size = {}, {}
for a, s, n in dyn + full:
    names.setdefault(a, set()).add(n)
    size[a] = max(size.get(a, 0), s)
addrs = sorted(names)
alone, gaps, reach = [], [], 0
for i, a in enumerate(addrs):
    nxt = addrs[i + 1] if i + 1 < len(addrs) else None
    if reach and reach < a:
        gaps.append(reach)
    if size[a] and len(names[a]) == 1 and reach <= a and (nxt is None or a + size[a] <= nxt):
        alone.append(a)
    reach = max(reach, a + size[a])
rnd = random.Random(seed)
inner = [a for a in alone if not names[a] & exported]
outer = [a for a in alone if names[a] <= exported]
base = lib.rsplit("/", 1)[-1]
for a in rnd.sample(inner, 20):
    print("%x %s internal" % (a + size[a] // 2, min(names[a])))
for a in rnd.sample(outer, 10):
    print("%x %s exported" % (a + size[a] // 2, min(names[a])))
for g in rnd.sample(gaps, 5):
    print("%x %s+0x%x gap" % (g, base, g))
PY
}

# names_match LIB FILE KIND: c_names names every offset of KIND in FILE as expected.
names_match() {
  local want got
  want=$(awk -v k="$3" '$3 == k {print $2}' "$2")
  got=$("$NAMES" "$1" $(awk -v k="$3" '$3 == k {print $1}' "$2"))
  [ "$got" = "$want" ] && return 0
  paste -d' ' <(awk -v k="$3" '$3 == k {print $1, $2}' "$2") <(echo "$got") |
    awk '$2 != $3 {print "offset " $1 ": want " $2 ", got " $3}' | diag
  return 1
}

SEED=${SEED:-$RANDOM}
echo "# seed $SEED (rerun with SEED=$SEED)"
P=$WORK/picked
pick "$SEED" "$LIBC" "$DBG" >"$P" 2>"$WORK/pick.err" || diag <"$WORK/pick.err"
check "20 internal libc functions named from the debug file" names_match "$LIBC" "$P" internal
check "10 exported libc functions still named" names_match "$LIBC" "$P" exported
check "5 addresses between functions give libc.so.6+0x..." names_match "$LIBC" "$P" gap

# The debuglink route: a library without build id, stripped, linked to its debug file.
D=$WORK/dl
mkdir -p "$D/.debug"
cat >"$D/dl.c" <<'C'
__attribute__((noinline, used)) static int hidden_step(int x) { return x * 3 + (x >> 2); }
int exported_entry(int x) { return hidden_step(x) + 1; }
C
gcc -shared -fPIC -O0 -Wl,--build-id=none -o "$D/libdltest.so" "$D/dl.c" &&
  objcopy --only-keep-debug "$D/libdltest.so" "$D/libdltest.debug" &&
  strip --strip-all "$D/libdltest.so" &&
  (cd "$D" && objcopy --add-gnu-debuglink=libdltest.debug libdltest.so)
mid() {
  local v
  v=($(readelf -W --syms "$D/libdltest.debug" 2>/dev/null |
    awk -v n="$1" '$8 == n {print $2, $3; exit}'))
  printf '%x' $((0x${v[0]} + ${v[1]} / 2))
}
HIDDEN=$(mid hidden_step) ENTRY=$(mid exported_entry)
dl_names() { "$NAMES" "$D/libdltest.so" "$HIDDEN" "$ENTRY" | tr '\n' ' '; }
check "debuglink: the debug file beside the library names the internal function" \
  [ "$(dl_names)" = "hidden_step exported_entry " ]
mv "$D/libdltest.debug" "$D/.debug/"
check "debuglink: the debug file in .debug/ names it" \
  [ "$(dl_names)" = "hidden_step exported_entry " ]
mv "$D/.debug/libdltest.debug" "$D/" && printf x >>"$D/libdltest.debug" # the CRC changes
got=$(dl_names)
echo "# with a wrong CRC: $got"
check "debuglink: a debug file with another CRC is refused (library+offset)" \
  [ "$got" = "libdltest.so+0x$HIDDEN exported_entry " ]
rm "$D/libdltest.debug"
check "debuglink: no debug file: exported names only" [ "$(dl_names)" = "$got" ]

# The agent: glibc's getaddrinfo opens nscd's socket (every 100th lookup while nscd is not
# running, every one while it is) through its internal __nscd_open_socket.
compile || { echo "Bail out! javac failed"; exit 1; }
OUTF=$WORK/r.collapsed
run_agent "event=syscalls:sys_enter_socket,cstack,file=$OUTF" Resolver 2000 >"$WORK/stdout"
check "JVM resolving localhost under the agent exits 0" [ $? = 0 ]
# Every C frame the lookup called (the JNI function, getaddrinfo, glibc's internals...).
below=$(grep -o 'Inet6AddressImpl\.lookupAllHostAddr;[^ ]*' "$OUTF" | cut -d';' -f2- | tr ';' '\n' | sort -u)
echo "# C frames below lookupAllHostAddr: $(echo $below)"
internal=$(for n in $below; do
  ! readelf -W --dyn-syms "$LIBC" | grep -qE " $n(@|$)" &&
    readelf -W --syms "$DBG" 2>/dev/null | grep -qE " $n$" && echo "$n"
done)
check "a libc function absent from .dynsym names a frame ($(echo $internal))" [ -n "$internal" ]
check "no frame is named libc.so.6+0x..." [ "$(samples_with "$OUTF" 'libc\.so\.6\+0x')" = 0 ]
