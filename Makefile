# cephfab: non-recursive build. See README.md.
#
#   make            build cephfab-agent and cephfab
#   make deps       install missing Debian packages (root, idempotent):
#                   build-deps (to compile) and test-deps (make check)
#   make deb        the Debian packages, in build/deb/
#   make image      the agent's container image (root file system of
#                   Debian's packages and the .deb), in build/image/
#   make check      deps if needed, build, unit tests, unit tests under
#                   ASan+UBSan, integration tests, short fuzz runs
#   make demo       the matrix on a built-in lab
#   make fuzz       libFuzzer campaigns (FUZZ_SECONDS, or FUZZ_RUNS executions, per harness)
#   make install    PREFIX=/usr/local DESTDIR=

# The version is said once, in debian/changelog's first line: the
# programs, the packages and the image all read it from there.
VERSION := $(shell scripts/version.sh)
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
ALL_CFLAGS = $(OPT) $(CFLAGS) -std=gnu11 -D_GNU_SOURCE $(WARN) -MMD -MP -Iinclude -Icoordinator -Iagent -DCF_VERSION='"$(VERSION)"' \
	$(shell pkg-config --cflags $(PKG_LIBS)) $(EV_CFLAGS)
LDLIBS := $(shell pkg-config --libs $(PKG_LIBS)) $(EV_LIBS) -lm -lpthread
ifneq ($(SAN),)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
# The product's armour: an overflow aborts instead of running an
# attacker's address (tests/integration/armour.sh checks the binaries).
ALL_CFLAGS += -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fPIE
LDFLAGS += -pie -Wl,-z,relro,-z,now
endif
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

all:

# A folder per subsystem (docs/architecture.md): every .c of a program's
# folders is part of it, so a new file needs no line here.
UTIL_SRC := $(sort $(wildcard util/*.c))
PROTO_SRC := $(sort $(wildcard proto/*.c)) $(UTIL_SRC)
AGENT_SRC := $(sort $(wildcard agent/*.c agent/*/*.c))
COORD_SRC := $(sort $(wildcard coordinator/*.c coordinator/*/*.c))

PROTO_OBJ := $(PROTO_SRC:%.c=$(BUILD)/%.o)
AGENT_OBJ := $(AGENT_SRC:%.c=$(BUILD)/%.o)
COORD_OBJ := $(COORD_SRC:%.c=$(BUILD)/%.o)
LIBPROTO := $(BUILD)/libcephfab-proto.a

UNIT_TESTS := test_json test_frame test_auth test_netaddr test_inventory \
	test_conn test_config test_tputstat test_tputreq test_histogram \
	test_mtusearch test_sched test_eta test_findings test_matrix_load test_netlink \
	test_topology test_ceph test_analyzer test_plan test_child \
	test_rootcause test_localize test_text test_links test_trace test_watch \
	test_store test_pinglist test_ovs
UNIT_BINS := $(UNIT_TESTS:%=$(BUILD)/tests/%)

# Which objects each unit test links besides the protocol library.
$(BUILD)/tests/test_inventory: $(BUILD)/coordinator/core/inventory.o \
	$(BUILD)/coordinator/core/inventory_ansible.o
$(BUILD)/tests/test_config: $(BUILD)/agent/config.o
$(BUILD)/tests/test_sched: $(BUILD)/coordinator/matrix/sched.o
$(BUILD)/tests/test_eta: $(BUILD)/coordinator/matrix/eta.o
$(BUILD)/tests/test_localize: $(BUILD)/coordinator/verdict/localize.o
$(BUILD)/tests/test_watch: $(BUILD)/coordinator/watch/watch_decode.o
$(BUILD)/tests/test_store: $(BUILD)/coordinator/store/store.o
$(BUILD)/tests/test_pinglist: $(BUILD)/agent/monitor/pinglist.o \
	$(BUILD)/agent/monitor/http.o $(BUILD)/agent/monitor/buckets.o
VERDICT_OBJ := $(BUILD)/coordinator/verdict/findings.o \
	$(BUILD)/coordinator/verdict/finding.o $(BUILD)/coordinator/verdict/rootcause.o \
	$(BUILD)/coordinator/verdict/links.o $(BUILD)/coordinator/verdict/links_frag.o $(BUILD)/coordinator/verdict/localize.o \
	$(BUILD)/coordinator/verdict/links_mtu.o $(BUILD)/coordinator/verdict/profile.o \
	$(BUILD)/coordinator/verdict/unmeasured.o $(BUILD)/coordinator/verdict/routers.o
$(BUILD)/tests/test_rootcause: $(VERDICT_OBJ)
$(BUILD)/tests/test_links: $(VERDICT_OBJ)
$(BUILD)/tests/test_trace: $(BUILD)/agent/probes/trace.o $(BUILD)/agent/probes/trace_egress.o \
	$(BUILD)/agent/probes/trace_mtu.o \
	$(BUILD)/agent/probes/route.o
$(BUILD)/tests/test_findings: $(VERDICT_OBJ)
$(BUILD)/tests/test_netlink: $(BUILD)/agent/facts/netlink.o \
	$(BUILD)/coordinator/facts/topology.o $(BUILD)/coordinator/facts/topology_bonds.o $(BUILD)/coordinator/verdict/finding.o
$(BUILD)/tests/test_ovs: $(BUILD)/agent/facts/ovs.o \
	$(BUILD)/coordinator/facts/topology.o $(BUILD)/coordinator/facts/topology_bonds.o $(BUILD)/coordinator/verdict/finding.o \
	$(BUILD)/coordinator/core/inventory.o
$(BUILD)/tests/test_topology: $(BUILD)/coordinator/facts/topology.o $(BUILD)/coordinator/facts/topology_bonds.o \
	$(BUILD)/coordinator/verdict/finding.o \
	$(BUILD)/coordinator/core/inventory.o
$(BUILD)/tests/test_analyzer: $(BUILD)/agent/capture/analyzer.o
$(BUILD)/tests/test_plan: $(BUILD)/coordinator/migrate/plan.o \
	$(BUILD)/coordinator/verdict/finding.o \
	$(BUILD)/coordinator/migrate/plan_script.o $(BUILD)/coordinator/ceph/ceph.o $(BUILD)/coordinator/ceph/ceph_state.o \
	$(BUILD)/coordinator/core/inventory.o \
	$(BUILD)/coordinator/migrate/journal.o $(BUILD)/coordinator/migrate/migrate.o \
	$(BUILD)/coordinator/migrate/migrate_gates.o $(BUILD)/coordinator/migrate/migrate_settle.o \
	$(BUILD)/coordinator/migrate/migrate_probe.o \
	$(BUILD)/coordinator/core/out.o $(BUILD)/coordinator/core/envelope.o
$(BUILD)/tests/test_ceph: $(BUILD)/coordinator/ceph/ceph.o $(BUILD)/coordinator/ceph/ceph_state.o \
	$(BUILD)/coordinator/core/inventory.o
$(BUILD)/tests/test_matrix_load: $(BUILD)/coordinator/matrix/matrix_load.o \
	$(VERDICT_OBJ)

.PHONY: all deps check unit unit-asan unit-asan-build san-bins integration fuzz \
	valgrind fuzz-build demo install clean deb image build-deps test-deps
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
	$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -c -o $@ $<

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(LIBPROTO)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBPROTO) $(CMOCKA_LIBS) \
		$(LDLIBS)

unit: $(UNIT_BINS)
	@tests/run_unit.sh $(UNIT_BINS)

unit-asan-build:
	$(MAKE) --no-print-directory BUILD=build/asan SAN=1 OPT="-O1 -g" \
		build/asan/cephfab-agent build/asan/cephfab \
		$(UNIT_TESTS:%=build/asan/tests/%)

# The agent and the coordinator under ASan+UBSan: what most integration
# scenarios run (tests/run_integration.sh).
san-bins:
	$(MAKE) --no-print-directory BUILD=build/asan SAN=1 OPT="-O1 -g" \
		build/asan/cephfab-agent build/asan/cephfab

unit-asan: unit-asan-build
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/run_unit.sh $(UNIT_TESTS:%=build/asan/tests/%)

deps:
	@scripts/deps.sh install all
build-deps:
	@scripts/deps.sh install build
test-deps:
	@scripts/deps.sh install test

# SCENARIOS="matrix probes": just those integration scenarios, with the
# same builds, rerun and timing; CHECK_PHASES picks phases (tests/check.sh).
# Builds on every core: make check's phases wait on them.
NPROC := $(shell nproc 2>/dev/null || echo 2)
check:
	@scripts/deps.sh check || scripts/deps.sh install
	@$(MAKE) --no-print-directory -j$(NPROC) all \
		$(if $(SCENARIOS),,$(UNIT_BINS))
	@UNIT_TESTS="$(UNIT_TESTS)" FUZZ_HARNESSES="$(FUZZ_HARNESSES)" \
		SCENARIOS="$(SCENARIOS)" CHECK_PHASES="$(CHECK_PHASES)" \
		NPROC=$(NPROC) tests/check.sh

integration: all san-bins
	@tests/run_integration.sh $(SCENARIOS)

# libFuzzer harnesses need clang.
FUZZ_HARNESSES := fuzz_frame fuzz_inventory fuzz_config fuzz_analyzer fuzz_ceph \
	fuzz_topology fuzz_profile fuzz_bodies fuzz_paths fuzz_results fuzz_report \
	fuzz_http
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_COMMON := -g -O1 -std=gnu11 -D_GNU_SOURCE \
	-Iinclude -Icoordinator -Iagent \
	-DCF_VERSION='"$(VERSION)"' \
	$(shell pkg-config --cflags $(PKG_LIBS)) $(EV_CFLAGS)
FUZZ_CFLAGS := -fsanitize=fuzzer,address,undefined $(FUZZ_COMMON)
FUZZ_EXTRA := coordinator/core/inventory.c agent/config.c agent/capture/analyzer.c \
	coordinator/ceph/ceph.c coordinator/ceph/ceph_state.c coordinator/facts/topology.c coordinator/facts/topology_bonds.c coordinator/verdict/findings.c \
	coordinator/verdict/finding.c coordinator/verdict/rootcause.c \
	coordinator/verdict/links.c coordinator/verdict/links_frag.c coordinator/probes/pair_path.c agent/probes/trace.c \
	agent/probes/trace_egress.c \
	coordinator/verdict/localize.c coordinator/verdict/profile.c \
	agent/probes/probe.c agent/probes/probe_io.c agent/probes/probe_lat.c agent/probes/probe_wire.c \
	agent/probes/probe_mesh.c agent/probes/route.c \
	agent/engine/engine_limits.c coordinator/probes/pair_result.c coordinator/probes/probe_result.c \
	coordinator/core/out.c coordinator/core/envelope.c agent/probes/trace_mtu.c agent/probes/probe_mtu.c \
	coordinator/verdict/links_mtu.c coordinator/verdict/routers.c coordinator/report/report_flows.c \
	coordinator/store/store.c coordinator/watch/watch_decode.c \
	coordinator/report/report.c coordinator/report/report_load.c coordinator/report/report_inventory.c \
	coordinator/report/report_ceph.c coordinator/report/report_links.c \
	coordinator/report/report_unmeasured.c coordinator/verdict/unmeasured.c \
	coordinator/matrix/matrix_load.c \
	agent/monitor/pinglist.c agent/monitor/http.c \
	tests/fuzz/stubs.c
# The sources every harness shares are compiled once (instrumented for
# the fuzzer, not linked with its main), each harness links them.
FUZZ_OBJS := $(patsubst %.c,build/fuzz/obj/%.o,$(PROTO_SRC) $(FUZZ_EXTRA))
build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -fsanitize=fuzzer-no-link,address,undefined $(FUZZ_COMMON) \
		-MMD -MP -c -o $@ $<
-include $(FUZZ_OBJS:.o=.d)
.SECONDARY: $(FUZZ_OBJS)
build/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJS)
	@mkdir -p build/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_OBJS) $(LDLIBS)
# Unit tests under valgrind: any error, or a definite leak, fails.
# One valgrind per core at once (each test binary is single-threaded).
valgrind: $(UNIT_BINS)
	@printf '%s\n' $(UNIT_TESTS) | xargs -P $(NPROC) -I{} sh -c \
		'if valgrind -q --error-exitcode=1 --leak-check=full \
		    --errors-for-leak-kinds=definite $(BUILD)/tests/{} \
		    >/dev/null 2>$(BUILD)/tests/{}.vg; then \
			echo "ok   valgrind {}"; \
		else echo "FAIL valgrind {}"; head -40 $(BUILD)/tests/{}.vg; \
			exit 255; fi' > $(BUILD)/valgrind.out; rc=$$?; \
		cat $(BUILD)/valgrind.out; \
		echo "valgrind: $$(grep -c '^ok' $(BUILD)/valgrind.out) passed," \
		"$$(grep -c '^FAIL' $(BUILD)/valgrind.out) failed"; \
		[ $$rc -eq 0 ]

fuzz-build: $(FUZZ_HARNESSES:%=build/fuzz/%)
fuzz: fuzz-build
	@FUZZ_RUNS=$(FUZZ_RUNS) tests/run_fuzz.sh $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

deb:
	@scripts/mkdeb.sh

image:
	@scripts/mkimage.sh

demo:
	@scripts/deps.sh check 2>/dev/null || scripts/deps.sh install
	@$(MAKE) --no-print-directory all >/dev/null
	@scripts/demo.sh

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
	@# The agent's own user (the unit runs it as cephfab), on a real
	@# install only: a package makes it in its maintainer scripts.
	if [ -z "$(DESTDIR)" ] && ! getent passwd cephfab >/dev/null; then \
		useradd --system --no-create-home --home-dir /nonexistent \
		    --shell /usr/sbin/nologin cephfab; fi
	@# state_dir: the monitor's pinglist (systemd's StateDirectory makes
	@# it too; this is for agents started otherwise).
	install -d -m 0700 $(DESTDIR)/var/lib/cephfab
	if [ -z "$(DESTDIR)" ]; then chown cephfab:cephfab /var/lib/cephfab; fi
	install -d $(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 dist/man/cephfab.8 dist/man/cephfab-agent.8 \
		$(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 0644 dist/bash-completion/cephfab \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/cephfab
	@# A copy, not a link: the agent's package has it without the
	@# coordinator's.
	install -m 0644 dist/bash-completion/cephfab \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/cephfab-agent

clean:
	rm -rf build cephfab cephfab-agent

-include $(shell find build -name '*.d' 2>/dev/null)
