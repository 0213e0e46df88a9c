// What kind of machine a result was measured on. The gate's priors and its gross worst-case rule
// differ by class, because what moves a latency between sessions differs:
//   bare_metal     the kernel's and the hardware's own variation;
//   vm             a hypervisor's guest: the host's load moves every session, often unseen;
//   emulated       QEMU without acceleration (TCG): guest time runs at the emulator's pace;
//   deterministic  the lab's board with time counted in instructions (QEMU -icount): the same
//                  kernel gives the same latencies boot after boot, and its "microseconds" are
//                  instruction time, not a real board's.
#pragma once

#include <string>

#include "results/environment.h"

namespace rtgate {

enum class BoardClass { kBareMetal, kVirtualMachine, kEmulated, kDeterministic };

// "bare_metal", "vm", "emulated", "deterministic".
const char* to_string(BoardClass c);

// The class of the machine `e` describes: the lab's deterministic board says so on the kernel
// command line (rtgate_lab.clock=icount...), QEMU's TCG signs its CPUID leaf "QEMU" in
// Environment::hypervisor, any other hypervisor is a VM, none is bare metal.
BoardClass board_class(const Environment& e);

// The less predictable of two classes (a gate across two classes takes the noisier one's
// priors): vm and emulated over bare metal over deterministic.
BoardClass noisier(BoardClass a, BoardClass b);

}  // namespace rtgate
