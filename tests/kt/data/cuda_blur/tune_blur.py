#!/usr/bin/env python
"""Tunes a CUDA kernel as a Kernel Tuner user would: cmem_args, grid_div_y over two knobs and a
naive reference kernel run with run_kernel; import-kt's test input."""
import numpy
import kernel_tuner
from collections import OrderedDict


def tune():
    with open("blur.cu", "r") as f:
        kernel_string = f.read()

    width = numpy.int32(1000)
    height = numpy.int32(600)
    problem_size = (width, height)
    image = numpy.random.randn(width * height).astype(numpy.float32)
    output = numpy.zeros(width * height).astype(numpy.float32)
    weights = numpy.random.rand(9).astype(numpy.float32)
    scale = numpy.float32(0.5)
    cmem_args = {"d_weights": weights}
    args = [output, image, width, height, scale]

    tune_params = OrderedDict()
    tune_params["block_size_x"] = [32 * i for i in range(1, 5)]
    tune_params["block_size_y"] = [2**i for i in range(4)]
    tune_params["tile_size_y"] = [1, 2, 4]

    params = {"block_size_x": 32, "block_size_y": 8}
    reference = kernel_tuner.run_kernel("blur_naive", kernel_string, problem_size, args, params,
                                        grid_div_y=["block_size_y"], cmem_args=cmem_args)
    answer = [reference[0], None, None, None, None]

    grid_div_x = ["block_size_x"]
    grid_div_y = ["block_size_y", "tile_size_y"]
    results, env = kernel_tuner.tune_kernel("blur_kernel", kernel_string, problem_size, args,
                                            tune_params, grid_div_x=grid_div_x,
                                            grid_div_y=grid_div_y, cmem_args=cmem_args,
                                            answer=answer,
                                            restrictions=["block_size_x * block_size_y <= 1024"])
    return results


if __name__ == "__main__":
    tune()
