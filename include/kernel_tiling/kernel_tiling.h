// SDK header name of the kernel-side tiling structs (TCubeTiling, see
// asc/kernel/matmul_tiling.h) and GET_TILING_DATA & co. (asc/kernel/tiling_data.h).
#pragma once

#include "asc/kernel/matmul_tiling.h"
#include "asc/kernel/tiling_data.h"
