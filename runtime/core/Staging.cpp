//===- Staging.cpp - device buffers for packing and unpacking -------------===//

#include "Staging.h"
#include "Failure.h"

#include "sprt/device.h"

#include <string>

using namespace sprt;

Staging &sprt::staging() {
  static Staging s(MemoryCategory::Staging);
  return s;
}

Staging &sprt::workspaces() {
  static Staging s(MemoryCategory::Workspace);
  return s;
}

void *Staging::acquire(int64_t bytes) {
  // The smallest free buffer that fits; else the largest free one grows
  // (is replaced); else a new one.
  Buffer *best = nullptr, *largest = nullptr;
  for (Buffer &b : buffers) {
    if (b.held)
      continue;
    if (b.bytes >= bytes && (!best || b.bytes < best->bytes))
      best = &b;
    if (!largest || b.bytes > largest->bytes)
      largest = &b;
  }
  if (!best) {
    if (largest) {
      release(largest->data);
      best = largest;
    } else {
      buffers.push_back({nullptr, 0, false});
      best = &buffers.back();
    }
    best->bytes = bytes > 64 ? bytes : 64;
    best->data = allocate(best->bytes, category);
    if (!best->data)
      fatal("cannot allocate " + std::to_string(best->bytes) + " bytes of " +
            sprt_backend_name() + " memory for a " +
            (category == MemoryCategory::Staging ? "collective's staging buffer"
                                                 : "workspace"));
  }
  best->held = true;
  return best->data;
}

void Staging::release(void *buffer) {
  for (Buffer &b : buffers)
    if (b.data == buffer)
      b.held = false;
}

void Staging::freeAll() {
  for (Buffer &b : buffers)
    release(b.data);
  buffers.clear();
}
