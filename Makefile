# cephfab: non-recursive build. See README.md.
#
#   make            build cephfab-agent and cephfab
#   make deps       install missing Debian packages (root, idempotent)
#   make check      deps if needed, build, unit tests, unit tests under
#                   ASan+UBSan, integration tests, short fuzz runs
#   make demo       the matrix on a built-in lab
#   make fuzz       libFuzzer campaigns (FUZZ_SECONDS, or FUZZ_RUNS executions, per harness)
#   make install    PREFIX=/usr/local DESTDIR=

VERSION := 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
CC ?= cc
SAN ?=

PKG_LIBS := libcjson libcrypto sqlite3 libnl-3.0 libnl-route-3.0 libpcap
EV_CFLAGS := $(shell pkg-config --cflags libev 2>/dev/null)
EV_LIBS := $(shell pkg-config --libs libev 2>/dev/null || echo -lev)

# Error messages are cut to CF_ERRLEN on purpose: truncation is not a bug.
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Werror -Wno-format-truncation
OPT ?= -O2 -g
CFLAGS ?=
ALL_CFLAGS = $(OPT) $(CFLAGS) -std=gnu11 -D_GNU_SOURCE $(WARN) -MMD -MP -Iinclude -DCF_VERSION='"$(VERSION)"' \
	$(shell pkg-config --cflags $(PKG_LIBS)) $(EV_CFLAGS)
LDLIBS := $(shell pkg-config --libs $(PKG_LIBS)) $(EV_LIBS) -lm -lpthread
ifneq ($(SAN),)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

all:

PROTO_SRC := proto/log.c proto/pj.c proto/msg.c proto/frame.c proto/auth.c \
	proto/netaddr.c proto/conn.c proto/ini.c \
	proto/tstat.c proto/tmsg.c proto/units.c proto/hist.c \
	proto/mtusearch.c proto/child.c
AGENT_SRC := agent/main.c agent/agent.c agent/config.c agent/ifaddrs.c \
	agent/engine.c agent/limits.c agent/stream.c agent/probe.c agent/probe_io.c \
	agent/probe_mesh.c agent/route.c agent/nlfacts.c agent/facts.c \
	agent/spread.c agent/tcpan.c agent/capture.c agent/watch.c
COORD_SRC := coordinator/main.c coordinator/cli.c coordinator/cli_matrix.c coordinator/inventory.c \
	coordinator/hosts.c coordinator/out.c coordinator/sess.c \
	coordinator/pair.c coordinator/tput_out.c coordinator/pex.c \
	coordinator/probecmd.c coordinator/rounds.c coordinator/findings.c \
	coordinator/store.c coordinator/matrix.c coordinator/mjob.c coordinator/mreport.c \
	coordinator/mrender.c \
	coordinator/compare.c coordinator/mload.c coordinator/mesh.c coordinator/topo.c \
	coordinator/sweep.c coordinator/cwatch.c coordinator/ceph.c \
	coordinator/cli_ceph.c coordinator/plan.c coordinator/plan_script.c \
	coordinator/journal.c coordinator/migrate.c coordinator/mig_gates.c \
	coordinator/mig_watch.c coordinator/mig_probe.c \
	coordinator/plan_net.c

PROTO_OBJ := $(PROTO_SRC:%.c=$(BUILD)/%.o)
AGENT_OBJ := $(AGENT_SRC:%.c=$(BUILD)/%.o)
COORD_OBJ := $(COORD_SRC:%.c=$(BUILD)/%.o)
LIBPROTO := $(BUILD)/libcephfab-proto.a

UNIT_TESTS := test_pj test_frame test_auth test_netaddr test_inventory \
	test_conn test_config test_tstat test_tmsg test_hist \
	test_mtusearch test_rounds test_findings test_mload test_nlfacts \
	test_topo test_ceph test_tcpan test_plan test_child
UNIT_BINS := $(UNIT_TESTS:%=$(BUILD)/tests/%)

# Which objects each unit test links besides the protocol library.
$(BUILD)/tests/test_inventory: $(BUILD)/coordinator/inventory.o
$(BUILD)/tests/test_config: $(BUILD)/agent/config.o
$(BUILD)/tests/test_rounds: $(BUILD)/coordinator/rounds.o
$(BUILD)/tests/test_findings: $(BUILD)/coordinator/findings.o
$(BUILD)/tests/test_nlfacts: $(BUILD)/agent/nlfacts.o \
	$(BUILD)/coordinator/topo.o
$(BUILD)/tests/test_topo: $(BUILD)/coordinator/topo.o \
	$(BUILD)/coordinator/inventory.o
$(BUILD)/tests/test_tcpan: $(BUILD)/agent/tcpan.o
$(BUILD)/tests/test_plan: $(BUILD)/coordinator/plan.o \
	$(BUILD)/coordinator/plan_script.o $(BUILD)/coordinator/ceph.o \
	$(BUILD)/coordinator/inventory.o \
	$(BUILD)/coordinator/journal.o $(BUILD)/coordinator/migrate.o \
	$(BUILD)/coordinator/mig_gates.o $(BUILD)/coordinator/mig_watch.o \
	$(BUILD)/coordinator/mig_probe.o \
	$(BUILD)/coordinator/out.o
$(BUILD)/tests/test_ceph: $(BUILD)/coordinator/ceph.o \
	$(BUILD)/coordinator/inventory.o
$(BUILD)/tests/test_mload: $(BUILD)/coordinator/mload.o \
	$(BUILD)/coordinator/findings.o

.PHONY: all deps check unit unit-asan unit-asan-build integration fuzz valgrind \
	fuzz-build demo install clean
all: $(BUILD)/cephfab-agent $(BUILD)/cephfab cephfab-agent cephfab

cephfab-agent: $(BUILD)/cephfab-agent
	ln -sf $< $@
cephfab: $(BUILD)/cephfab
	ln -sf $< $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIBPROTO): $(PROTO_OBJ)
	$(AR) rcs $@ $^

$(BUILD)/cephfab-agent: $(AGENT_OBJ) $(LIBPROTO)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/cephfab: $(COORD_OBJ) $(LIBPROTO)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -Icoordinator -Iagent -c -o $@ $<

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(LIBPROTO)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBPROTO) $(CMOCKA_LIBS) \
		$(LDLIBS)

unit: $(UNIT_BINS)
	@tests/run_unit.sh $(UNIT_BINS)

unit-asan-build:
	$(MAKE) --no-print-directory BUILD=build/asan SAN=1 OPT="-O1 -g" \
		build/asan/cephfab-agent build/asan/cephfab \
		$(UNIT_TESTS:%=build/asan/tests/%)

unit-asan: unit-asan-build
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/run_unit.sh $(UNIT_TESTS:%=build/asan/tests/%)

deps:
	@tests/deps.sh install

check:
	@tests/deps.sh check || tests/deps.sh install
	@$(MAKE) --no-print-directory all $(UNIT_BINS)
	@UNIT_TESTS="$(UNIT_TESTS)" FUZZ_HARNESSES="$(FUZZ_HARNESSES)" \
		tests/check.sh

integration: all
	@tests/run_integration.sh

# libFuzzer harnesses need clang.
FUZZ_HARNESSES := fuzz_frame fuzz_inventory fuzz_config fuzz_tcpan fuzz_ceph \
	fuzz_topo fuzz_profile fuzz_bodies
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -std=gnu11 -D_GNU_SOURCE \
	-Iinclude -iquote coordinator -iquote agent \
	-DCF_VERSION='"$(VERSION)"' \
	$(shell pkg-config --cflags $(PKG_LIBS)) $(EV_CFLAGS)
FUZZ_EXTRA := coordinator/inventory.c agent/config.c agent/tcpan.c \
	coordinator/ceph.c coordinator/topo.c coordinator/findings.c \
	agent/probe.c agent/probe_io.c agent/probe_mesh.c agent/route.c \
	agent/limits.c tests/fuzz/stubs.c
build/fuzz/%: tests/fuzz/%.c $(PROTO_SRC) $(FUZZ_EXTRA)
	@mkdir -p build/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(PROTO_SRC) $(FUZZ_EXTRA) \
		$(LDLIBS)
# Unit tests under valgrind: any error, or a definite leak, fails.
valgrind: $(UNIT_BINS)
	@pass=0; for t in $(UNIT_TESTS); do \
		if valgrind -q --error-exitcode=1 --leak-check=full \
		    --errors-for-leak-kinds=definite $(BUILD)/tests/$$t \
		    >/dev/null 2>$(BUILD)/tests/$$t.vg; then \
			echo "ok   valgrind $$t"; pass=$$((pass + 1)); \
		else echo "FAIL valgrind $$t"; head -40 $(BUILD)/tests/$$t.vg; \
			exit 1; fi; done; echo "valgrind: $$pass passed, 0 failed"

fuzz-build: $(FUZZ_HARNESSES:%=build/fuzz/%)
fuzz: fuzz-build
	@FUZZ_RUNS=$(FUZZ_RUNS) tests/run_fuzz.sh $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

demo:
	@tests/deps.sh check 2>/dev/null || tests/deps.sh install
	@$(MAKE) --no-print-directory all >/dev/null
	@tests/demo.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/sbin \
		$(DESTDIR)/lib/systemd/system $(DESTDIR)/etc/cephfab
	install -m 0755 $(BUILD)/cephfab $(DESTDIR)$(PREFIX)/bin/cephfab
	install -m 0755 $(BUILD)/cephfab-agent \
		$(DESTDIR)$(PREFIX)/sbin/cephfab-agent
	sed 's|@PREFIX@|$(PREFIX)|g' dist/cephfab-agent.service.in \
		> $(DESTDIR)/lib/systemd/system/cephfab-agent.service
	chmod 0644 $(DESTDIR)/lib/systemd/system/cephfab-agent.service
	test -e $(DESTDIR)/etc/cephfab/agent.conf || \
		install -m 0644 configs/agent.conf \
		$(DESTDIR)/etc/cephfab/agent.conf

clean:
	rm -rf build cephfab cephfab-agent

-include $(shell find build -name '*.d' 2>/dev/null)
