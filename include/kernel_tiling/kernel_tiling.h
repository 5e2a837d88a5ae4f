// SDK header name of the kernel-side tiling structs (TCubeTiling). See
// asc/kernel/matmul_tiling.h.
#pragma once

#include "asc/kernel/matmul_tiling.h"
