#!/usr/bin/env bash
# The product binaries carry their armour, so that the next overflow
# aborts instead of running an attacker's address: position independent
# (PIE), read-only relocations bound at start (RELRO, BIND_NOW), stack
# canaries (__stack_chk_fail) and fortified libc calls (*_chk). Always the
# product build ($TOP/build), also in the sanitizer pass.
. "$(dirname "$0")/lib.sh"
command -v readelf >/dev/null && command -v nm >/dev/null || skip "no binutils"
for b in "$TOP/build/cephfab" "$TOP/build/cephfab-agent"; do
	[ -x "$b" ] || fail "$b: not built"
	readelf -hW "$b" | grep -q 'Type:.*DYN' || fail "$b: not PIE"
	readelf -lW "$b" | grep -q GNU_RELRO || fail "$b: no RELRO"
	readelf -dW "$b" | grep -Eq 'BIND_NOW|FLAGS_1.*NOW' || fail "$b: no BIND_NOW"
	nm -D "$b" | grep -q '__stack_chk_fail' || fail "$b: no stack protector"
	nm -D "$b" | grep -Eq '__(snprintf|memcpy|printf)_chk' || fail "$b: not fortified"
	note "$(basename "$b"): PIE, RELRO, BIND_NOW, stack protector, fortify"
done
echo "armour: ok"
