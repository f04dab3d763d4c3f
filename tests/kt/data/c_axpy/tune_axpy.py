#!/usr/bin/env python
"""Tunes a C kernel as a Kernel Tuner user would (lang="C"); import-kt's test input."""
import numpy
from collections import OrderedDict
from kernel_tuner import tune_kernel


def tune():
    with open("axpy.c", "r") as f:
        kernel_string = f.read()

    size = 100000
    x = numpy.random.randn(size).astype(numpy.float32)
    y = numpy.zeros(size).astype(numpy.float32)
    n = numpy.int32(size)
    alpha = numpy.float32(2.5)
    args = [y, x, n, alpha]

    tune_params = OrderedDict()
    tune_params["unroll"] = [1, 2, 4, 8]
    tune_params["block"] = [64, 256, 1024]

    answer = [alpha * x, None, None, None]
    return tune_kernel("axpy", kernel_string, size, args, tune_params, answer=answer,
                       lang="C", compiler_options=["-O2"],
                       restrictions=["block % unroll == 0"])


if __name__ == "__main__":
    tune()
