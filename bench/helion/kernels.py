"""The head to head's Helion kernels, written in the form of Helion's examples, each with its
LLM-sized problem, a maker of its arguments and the eager PyTorch it must agree with."""
import math

import torch

import helion
import helion.language as hl


def matmul_kernel(**settings):
    @helion.kernel(**settings)
    def matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        m, k = x.size()
        _, n = y.size()
        out = torch.empty([m, n], dtype=x.dtype, device=x.device)
        for tile_m, tile_n in hl.tile([m, n]):
            acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
            for tile_k in hl.tile(k):
                acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
            out[tile_m, tile_n] = acc.to(x.dtype)
        return out
    return matmul


def softmax_kernel(**settings):
    @helion.kernel(**settings)
    def softmax(x: torch.Tensor) -> torch.Tensor:
        rows, _ = x.size()
        out = torch.empty_like(x)
        for tile in hl.tile(rows):
            out[tile, :] = torch.nn.functional.softmax(x[tile, :], dim=1)
        return out
    return softmax


def rms_norm_kernel(**settings):
    @helion.kernel(**settings)
    def rms_norm(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        rows, cols = x.size()
        out = torch.empty_like(x)
        for tile in hl.tile(rows):
            row = x[tile, :].to(torch.float32)
            inverse = torch.rsqrt(torch.mean(row * row, dim=-1) + 1e-5)
            out[tile, :] = (row * inverse[:, None] * weight[:].to(torch.float32)).to(out.dtype)
        return out
    return rms_norm


def layer_norm_kernel(**settings):
    @helion.kernel(**settings)
    def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        rows, cols = x.size()
        out = torch.empty_like(x)
        for tile in hl.tile(rows):
            row = x[tile, :].to(torch.float32)
            var, mean = torch.var_mean(row, dim=-1, keepdim=True, correction=0)
            scaled = (row - mean) * torch.rsqrt(var + 1e-5)
            out[tile, :] = (scaled * weight[:].to(torch.float32)
                            + bias[:].to(torch.float32)).to(out.dtype)
        return out
    return layer_norm


def swiglu_kernel(**settings):
    @helion.kernel(**settings)
    def swiglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(gate)
        for tile in hl.tile(out.size()):
            g = gate[tile].to(torch.float32)
            out[tile] = (g * torch.sigmoid(g) * up[tile].to(torch.float32)).to(out.dtype)
        return out
    return swiglu


def attention_kernel(**settings):
    @helion.kernel(static_shapes=True, **settings)
    def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        seq_q, seq_k = q.size(-2), k.size(-2)
        dim = hl.specialize(q.size(-1))
        qs = q.reshape([-1, seq_q, dim])
        ks = k.reshape([-1, seq_k, dim]).transpose(1, 2)
        vs = v.reshape([-1, seq_k, dim])
        out = torch.empty_like(qs)
        scale = 1.4426950408889634 / math.sqrt(dim)  # log2(e) / sqrt(d): exp2 below
        for tile_b, tile_m in hl.tile([qs.size(0), seq_q]):
            running_max = hl.full([tile_b, tile_m], float("-inf"), dtype=torch.float32)
            running_sum = hl.full([tile_b, tile_m], 1.0, dtype=torch.float32)
            acc = hl.zeros([tile_b, tile_m, dim], dtype=torch.float32)
            query = qs[tile_b, tile_m, :]
            for tile_n in hl.tile(seq_k):
                scores = torch.bmm(query, ks[tile_b, :, tile_n])
                new_max = torch.maximum(running_max, torch.amax(scores, -1) * scale)
                probs = torch.exp2(scores * scale - new_max[:, :, None])
                correction = torch.exp2(running_max - new_max)
                running_sum = running_sum * correction + torch.sum(probs, -1)
                acc = torch.baddbmm(acc * correction[:, :, None], probs.to(vs.dtype),
                                    vs[tile_b, tile_n, :])
                running_max = new_max
            out[tile_b, tile_m, :] = (acc / running_sum[:, :, None]).to(out.dtype)
        return out.view(q.size())
    return attention


def _rand(*shape, device, dtype=torch.bfloat16):
    return torch.randn(*shape, device=device, dtype=dtype)


# name -> (kernel maker, arguments maker, eager reference, problem), at one LLM-sized shape each;
# `small` shrinks every problem for a CPU run under TRITON_INTERPRET=1.
def cases(device, small=False):
    s = (lambda big, tiny: tiny) if small else (lambda big, tiny: big)
    m, n, k = s(2048, 32), s(4096, 64), s(4096, 64)
    rows, cols = s(4096, 32), s(8192, 64)
    b, h, seq, d = s(2, 1), s(32, 2), s(2048, 32), s(128, 16)
    return {
        "matmul": (matmul_kernel, lambda: (_rand(m, k, device=device), _rand(k, n, device=device)),
                   lambda x, y: x @ y, f"{m}x{n}x{k} bf16"),
        "softmax": (softmax_kernel, lambda: (_rand(rows, cols, device=device),),
                    lambda x: torch.softmax(x.float(), dim=1).to(x.dtype), f"{rows}x{cols} bf16"),
        "rms_norm": (rms_norm_kernel,
                     lambda: (_rand(rows, cols, device=device), _rand(cols, device=device)),
                     lambda x, w: torch.nn.functional.rms_norm(x.float(), (x.shape[1],), w.float(),
                                                               1e-5).to(x.dtype),
                     f"{rows}x{cols} bf16"),
        "layer_norm": (layer_norm_kernel,
                       lambda: (_rand(rows, cols, device=device), _rand(cols, device=device),
                                _rand(cols, device=device)),
                       lambda x, w, bias: torch.nn.functional.layer_norm(
                           x.float(), (x.shape[1],), w.float(), bias.float(), 1e-5).to(x.dtype),
                       f"{rows}x{cols} bf16"),
        "swiglu": (swiglu_kernel,
                   lambda: (_rand(rows, s(14336, 64), device=device),
                            _rand(rows, s(14336, 64), device=device)),
                   lambda g, u: (torch.nn.functional.silu(g.float()) * u.float()).to(g.dtype),
                   f"{rows}x{s(14336, 64)} bf16"),
        "attention": (attention_kernel,
                      lambda: tuple(_rand(b, h, seq, d, device=device) for _ in range(3)),
                      lambda q, k_, v: torch.nn.functional.scaled_dot_product_attention(q, k_, v),
                      f"{b}x{h}x{seq}x{d} bf16"),
    }
