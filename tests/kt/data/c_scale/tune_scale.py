#!/usr/bin/env python
"""Tunes an in-place C kernel without an `answer`, as most of Kernel Tuner's examples do;
import-kt's test input."""
import numpy
from kernel_tuner import tune_kernel


def tune():
    with open("scale.c", "r") as f:
        kernel_string = f.read()

    size = 10000
    y = numpy.random.randn(size).astype(numpy.float32)
    x = numpy.random.randn(size).astype(numpy.float32)
    args = [y, x, numpy.int32(size), numpy.float32(0.5)]
    tune_params = {"unroll": [1, 2, 3, 4]}
    return tune_kernel("scale_add", kernel_string, size, args, tune_params, lang="C")


if __name__ == "__main__":
    tune()
