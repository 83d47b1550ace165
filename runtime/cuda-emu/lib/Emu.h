//===- Emu.h - the emulator's pieces, between its files ---------*- C++ -*-===//

#ifndef SPRT_EMU_LIB_EMU_H
#define SPRT_EMU_LIB_EMU_H

#include "SprtEmu.h"

#include <functional>

namespace sprt_emu {

/// Runs every block of the grid now (Threads.cpp).
void executeGrid(const Config &c, const char *kernel,
                 const std::function<void()> &body);

/// Whether `p` .. `p + bytes` lies in memory cudaMalloc / cudaMallocHost
/// gave.
bool isDeviceMemory(const void *p, size_t bytes);

} // namespace sprt_emu

#endif // SPRT_EMU_LIB_EMU_H
