// Umbrella header of the NumPy-style layer.
#pragma once

#include "hhlo/ops/linalg.h"
#include "hhlo/ops/reductions.h"
#include "hhlo/ops/shape_ops.h"
#include "hhlo/ops/tensor.h"
