# SPDX-License-Identifier: GPL-2.0
#
# ns-3 model driving the transport core (Documentation/simulation.rst),
# included by the top-level Makefile.
#   make sim-build   build build/sim/mrt_sim against Debian's libns3-dev
#   make sim         every scenario: JSON + PNG under build/sim/
#   make sim-check   one small loss-sweep point with asserted thresholds (TAP)
#
# The transport core files drivers/infiniband/sw/metaroce/mrt_*.c are
# compiled by gcc as C through the userspace shim (kunit/user/) and linked
# into the C++ simulator: the simulated endpoints run the module's code.

SIM_DIR := build/sim
SIM_BIN := $(SIM_DIR)/mrt_sim
SIM_MRT_DIR := drivers/infiniband/sw/metaroce
SIM_MRT_SRCS := $(sort $(wildcard $(SIM_MRT_DIR)/mrt_*.c))
SIM_MRT_OBJS := $(patsubst %.c,$(SIM_DIR)/obj/%.o,$(SIM_MRT_SRCS))
SIM_INC := -Ikunit/user -I$(SIM_MRT_DIR) -Iinclude/uapi
SIM_CFLAGS := -std=gnu11 -O2 -g -fno-strict-aliasing -Wall -Wextra \
	-Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare \
	-Wno-type-limits -Wno-shift-negative-value $(SIM_INC) -MMD -MP
# Debian's ns3 .pc files carry a broken -I; the headers are in /usr/include/ns3
SIM_CXXFLAGS := -std=c++17 -O2 -g -Wall -Wno-unused-parameter $(SIM_INC)
SIM_NS3_LIBS := -lns3-core -lns3-network -lns3-internet -lns3-point-to-point \
	-lns3-traffic-control -lns3-bridge -lns3-stats -lns3-applications
SIM_RUN := nice -n 10

.PHONY: sim sim-build sim-check
sim-build: $(SIM_BIN)

$(SIM_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	gcc $(SIM_CFLAGS) -c -o $@ $<

$(SIM_DIR)/obj/mrt_sim.o: sim/mrt_sim.cc $(wildcard $(SIM_MRT_DIR)/*.h) sim/sim.mk
	@mkdir -p $(dir $@)
	@test -f /usr/include/ns3/core-module.h || \
		{ echo "ns-3 headers missing: apt-get install libns3-dev (scripts/deps.sh)"; exit 1; }
	g++ $(SIM_CXXFLAGS) -c -o $@ $<

$(SIM_BIN): $(SIM_DIR)/obj/mrt_sim.o $(SIM_MRT_OBJS)
	g++ -o $@ $^ $(SIM_NS3_LIBS)

-include $(SIM_MRT_OBJS:.o=.d)

sim: $(SIM_BIN)
	$(SIM_RUN) bash sim/run.sh all

sim-check: $(SIM_BIN)
	$(SIM_RUN) bash sim/run.sh check
