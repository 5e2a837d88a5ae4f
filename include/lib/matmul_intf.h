// SDK header name of the high-level Matmul API (kernel side): Matmul,
// MatmulType, REGIST_MATMUL_OBJ, TCubeTiling. See asc/kernel/matmul.h.
#pragma once

#include "kernel_operator.h"
#include "asc/kernel/matmul.h"
