#include "cutune/spec.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "cutune/space.hpp"

namespace cutune {
namespace {

const std::filesystem::path examples = CUTUNE_EXAMPLES_DIR;

// A folder holding a kernel source, so that inline specs can name it.
class InlineSpec : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("cutune-spec-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "k.cpp") << "extern \"C\" void k(void**, const long*) {}\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  KernelSpec parse(const std::string& text) { return parse_spec(text, dir_ / "spec.json"); }
  // The error message of a spec that must be rejected.
  std::string error_of(const std::string& text) {
    try {
      parse(text);
    } catch (const SpecError& error) {
      return error.what();
    }
    ADD_FAILURE() << "the spec was accepted:\n" << text;
    return {};
  }
  std::string at(int line) const {
    return (dir_ / "spec.json").string() + ":" + std::to_string(line) + ":";
  }

  std::filesystem::path dir_;
};

// The smallest valid spec, as lines, so that tests can break one line and know its number.
const char* minimal_head = R"js({
  "name": "k",
  "backend": "cpu",
  "source": "k.cpp",
  "entry": "k",
  "problem": {"n": 64},
)js";

TEST(Spec, LoadsTheMatmulExample) {
  auto spec = load_spec(examples / "cpu/matmul/matmul.json");
  EXPECT_EQ(spec.name, "cpu_matmul");
  EXPECT_EQ(spec.backend, "cpu");
  EXPECT_EQ(spec.source, examples / "cpu/matmul/matmul.cpp");
  EXPECT_EQ(spec.entry, "matmul");
  const Space& space = spec.tuning->space;
  EXPECT_EQ(space.names(), (std::vector<std::string>{"BM", "BN", "BK", "ORDER", "VEC", "UNROLL"}));
  EXPECT_EQ(space.fragment(0).kind(), "power_of_two");
  EXPECT_EQ(space.fragment(3).kind(), "permutation");
  // Seed-only values: BM = 1 is legal but never drawn.
  EXPECT_TRUE(space.fragment(0).contains(Value(1), View::full));
  EXPECT_FALSE(space.fragment(0).contains(Value(1), View::search));
  EXPECT_EQ(space.constraints().size(), 5u);
  ASSERT_EQ(spec.buffers.size(), 3u);
  EXPECT_EQ(spec.buffers[0].count.evaluate(spec.problem, Device{}), 192.0 * 192.0);
  EXPECT_EQ(spec.buffers[2].role, BufferRole::output);
  ASSERT_EQ(spec.scalars.size(), 3u);
  ASSERT_TRUE(spec.check);
  EXPECT_EQ(spec.check->source, examples / "cpu/matmul/reference.cpp");
  EXPECT_EQ(spec.check->entry, "matmul_reference");
  EXPECT_DOUBLE_EQ(spec.check->tolerance, 1e-4);
  EXPECT_EQ(spec.timing.max_reps, 15);
  EXPECT_EQ(spec.compile.flags, std::vector<std::string>{"-O2"});
  EXPECT_EQ(spec.version.size(), 16u);
  EXPECT_FALSE(spec.launch);

  // Both seeds are eligible for a tiny problem, the higher priority first.
  auto problem = spec.resolve(Problem::parse("m=64,n=64,k=128"));
  auto seeds = eligible_seeds(*spec.tuning, problem, Device::host_cpu());
  ASSERT_EQ(seeds.size(), 2u);
  EXPECT_EQ(seeds[0]->name, "cache_friendly");
  // Only the second for a small k.
  seeds = eligible_seeds(*spec.tuning, spec.resolve(Problem::parse("m=64,n=64,k=64")), Device{});
  ASSERT_EQ(seeds.size(), 1u);
  EXPECT_EQ(seeds[0]->name, "tiny");
}

TEST(Spec, ConstraintsRepairTowardsTheDeclaredDirection) {
  auto spec = load_spec(examples / "cpu/matmul/matmul.json");
  const Space& space = spec.tuning->space;
  auto problem = spec.resolve(Problem::parse("m=8,n=64,k=64"));
  auto config =
      space.complete({{"BM", 32}, {"BN", 16}, {"VEC", 16}, {"ORDER", Value::List{0, 1, 2}}});
  auto normalized = space.normalize(config, problem, Device::host_cpu());
  ASSERT_TRUE(normalized.config) << normalized.failure;
  EXPECT_EQ(normalized.config->get_int("BM"), 8);    // down from 32 to the first that fits m = 8
  EXPECT_EQ(normalized.config->get_int("VEC"), 16);  // VEC <= BN holds already
  EXPECT_TRUE(space.legal(*normalized.config, problem, Device::host_cpu()));

  // k innermost with a narrow BN: BN moves up to 32.
  auto narrow = space.complete({{"BN", 16}, {"VEC", 8}, {"ORDER", Value::List{0, 1, 2}}});
  auto repaired = space.normalize(narrow, spec.problem, Device{});
  ASSERT_TRUE(repaired.config) << repaired.failure;
  EXPECT_EQ(repaired.config->get_int("BN"), 32);
}

TEST(Spec, StringEnumsListsAndDevicesInExpressions) {
  auto spec = load_spec(examples / "cpu/faults/faults.json");
  EXPECT_EQ(spec.check->entry, "reduce_reference");
  EXPECT_TRUE(spec.check->source.empty());
  EXPECT_EQ(spec.scalars.size(), 1u);  // the integer problem arguments by default
  auto config = spec.tuning->space.complete({{"MODE", Value("hang")}});
  EXPECT_EQ(knob_definitions(config), (std::vector<std::string>{"MODE=hang", "MODE_hang=1"}));

  auto matmul = load_spec(examples / "cpu/matmul/matmul.json");
  auto blocked = matmul.tuning->space.complete({{"ORDER", Value::List{2, 0, 1}}, {"VEC", 4}});
  auto definitions = knob_definitions(blocked);
  for (const char* expected : {"BM=32", "ORDER={2,0,1}", "ORDER_0=2", "ORDER_2=1", "VEC=4"}) {
    EXPECT_NE(std::find(definitions.begin(), definitions.end(), expected), definitions.end())
        << expected;
  }
}

TEST_F(InlineSpec, ExpressionsSeeKnobsProblemAndDevice) {
  auto spec = parse(std::string(minimal_head) + R"js(
  "knobs": [
    {"name": "MODE", "kind": "enum", "choices": ["a", "b", "c"], "default": "b"},
    {"name": "P", "kind": "permutation", "size": 3},
    {"name": "T", "kind": "power_of_two", "min": 1, "max": 64},
    {"name": "F", "kind": "boolean", "default": true}
  ],
  "constraints": [
    {"name": "c1", "expr": "MODE == MODE_b && P_0 == 0 && F && T * 2 <= n && n % T == 0 && cdiv(n, 3) == 22"},
    {"name": "c2", "expr": "device_cc >= 90 || device_smem_per_block == 0"}
  ]
})js");
  const Space& space = spec.tuning->space;
  auto config = space.default_config();
  EXPECT_TRUE(space.legal(config, spec.problem, Device{}));
  config.set("MODE", Value("c"));
  EXPECT_FALSE(space.legal(config, spec.problem, Device{}));
  Device small_gpu;
  small_gpu.cc_major = 8;
  small_gpu.smem_per_block = 1024;
  EXPECT_FALSE(space.constraints()[1].holds(space.default_config(), spec.problem, small_gpu));
}

TEST_F(InlineSpec, ResolveChecksProblemArguments) {
  auto spec =
      parse(std::string(minimal_head) + R"js("knobs": [{"name": "T", "kind": "boolean"}]})js");
  EXPECT_EQ(spec.resolve(Problem::parse("n=128")).get_int("n"), 128);
  EXPECT_THROW(spec.resolve(Problem::parse("m=128")), SpecError);
  EXPECT_THROW(spec.resolve(Problem::parse("n=fast")), SpecError);
}

TEST_F(InlineSpec, MalformedJsonNamesLineAndColumn) {
  auto message = error_of("{\n  \"name\": \"k\",\n  \"backend\" \"cpu\"\n}");
  EXPECT_EQ(message.rfind(at(3), 0), 0u) << message;
  EXPECT_NE(message.find("malformed JSON"), std::string::npos) << message;
}

TEST_F(InlineSpec, SchemaErrorsNameLineAndWhatWasExpected) {
  // Line 8: an unknown kind.
  auto message = error_of(std::string(minimal_head) + R"js(  "knobs": [
    {"name": "T", "kind": "pow2", "min": 1, "max": 8}
  ]
})js");
  EXPECT_EQ(message.rfind(at(8), 0), 0u) << message;
  EXPECT_NE(message.find("knobs/0/kind: expected one of enum, boolean, power_of_two"),
            std::string::npos)
      << message;

  // Line 9: a misspelt field.
  message = error_of(std::string(minimal_head) + R"js(  "knobs": [
    {"name": "T", "kind": "power_of_two", "min": 1, "max": 8,
     "serach_min": 2}
  ]
})js");
  EXPECT_EQ(message.rfind(at(9), 0), 0u) << message;
  EXPECT_NE(message.find("unknown field 'serach_min'"), std::string::npos) << message;

  // Line 8: a value of the wrong type.
  message = error_of(std::string(minimal_head) + R"js(  "knobs": [
    {"name": "T", "kind": "integer", "min": "one", "max": 8}
  ]
})js");
  EXPECT_EQ(message.rfind(at(8), 0), 0u) << message;
  EXPECT_NE(message.find("expected an integer, got string"), std::string::npos) << message;

  // Line 1: a missing required field is reported where its object starts.
  message = error_of(R"js({"name": "k", "backend": "cpu", "source": "k.cpp", "knobs": []})js");
  EXPECT_EQ(message.rfind(at(1), 0), 0u) << message;
  EXPECT_NE(message.find("missing field 'entry'"), std::string::npos) << message;

  // Line 4: a source that does not exist.
  message = error_of(
      std::string(minimal_head).replace(std::string(minimal_head).find("k.cpp"), 5, "none.cpp") +
      R"js("knobs": [{"name": "T", "kind": "boolean"}]})js");
  EXPECT_EQ(message.rfind(at(4), 0), 0u) << message;
  EXPECT_NE(message.find("no such file"), std::string::npos) << message;
}

TEST_F(InlineSpec, PairedMovesNameKnobsOfTheSpace) {
  const std::string knobs = R"js(  "knobs": [
    {"name": "BM", "kind": "power_of_two", "min": 16, "max": 256},
    {"name": "BN", "kind": "power_of_two", "min": 16, "max": 256}
  ],
)js";
  const KernelSpec spec =
      parse(std::string(minimal_head) + knobs + R"js(  "paired_moves": [["BM", "BN"]]
})js");
  ASSERT_EQ(spec.tuning->space.move_pairs().size(), 1u);
  EXPECT_EQ(spec.tuning->space.move_pairs()[0], (std::vector<std::size_t>{0, 1}));
  // Line 12: a knob the space lacks, with the closest name.
  const std::string message = error_of(std::string(minimal_head) + knobs + R"js(  "paired_moves": [
    ["BM", "BK"]
  ]
})js");
  EXPECT_EQ(message.rfind(at(12), 0), 0u) << message;
  EXPECT_NE(message.find("unknown knob 'BK' (did you mean 'BM'?)"), std::string::npos) << message;
}

TEST_F(InlineSpec, KnobNamesMustBeIdentifiersUsableInCpp) {
  // Line 9: a space, a keyword, a leading digit, std, a newline.
  for (const std::string name : {"X Y", "class", "9a", "std", "a\\nb"}) {
    const auto message =
        error_of(std::string(minimal_head) + "  \"knobs\": [\n" +
                 "    {\"name\": \"ok\", \"kind\": \"boolean\"},\n" + "    {\"name\": \"" + name +
                 "\", \"kind\": \"boolean\"}\n  ]\n}");
    EXPECT_EQ(message.rfind(at(9), 0), 0u) << message;
    EXPECT_NE(message.find("knobs/1/name: knob name"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(
      parse(std::string(minimal_head) + R"js("knobs": [{"name": "X_Y", "kind": "boolean"}]})js"));
}

TEST_F(InlineSpec, KnobsWhoseDerivedNamesCollideAreRefused) {
  // ORDER's elements are ORDER_0..ORDER_2; a knob named ORDER_1 would be defined twice.
  auto message = error_of(std::string(minimal_head) + R"js(  "knobs": [
    {"name": "ORDER", "kind": "permutation", "size": 3},
    {"name": "ORDER_1", "kind": "boolean"}
  ]
})js");
  EXPECT_EQ(message.rfind(at(7), 0), 0u) << message;
  EXPECT_NE(message.find("ORDER_1"), std::string::npos) << message;
  // MODE's choice "fast" is the name MODE_fast.
  message = error_of(std::string(minimal_head) + R"js(  "knobs": [
    {"name": "MODE", "kind": "enum", "choices": ["fast", "slow"]},
    {"name": "MODE_fast", "kind": "integer", "min": 0, "max": 3}
  ]
})js");
  EXPECT_NE(message.find("MODE_fast"), std::string::npos) << message;
}

TEST_F(InlineSpec, ExpressionErrorsNameTheExpressionAndTheNamesInScope) {
  auto message =
      error_of(std::string(minimal_head) +
               R"js(  "knobs": [{"name": "T", "kind": "power_of_two", "min": 1, "max": 8}],
  "constraints": [
    {"name": "c",
     "expr": "T <= q"}
  ]
})js");
  EXPECT_EQ(message.rfind(at(10), 0), 0u) << message;
  EXPECT_NE(message.find("unknown name 'q'"), std::string::npos) << message;
  EXPECT_NE(message.find("names in scope: T,"), std::string::npos) << message;

  message = error_of(std::string(minimal_head) +
                     R"js(  "knobs": [{"name": "T", "kind": "power_of_two", "min": 1, "max": 8}],
  "constraints": [{"expr": "T <= * 2"}]
})js");
  EXPECT_EQ(message.rfind(at(8), 0), 0u) << message;
  EXPECT_NE(message.find("'T <= * 2'"), std::string::npos) << message;

  // Buffer sizes see problem arguments, not knobs.
  message = error_of(std::string(minimal_head) +
                     R"js(  "knobs": [{"name": "T", "kind": "power_of_two", "min": 1, "max": 8}],
  "buffers": [{"name": "x", "type": "f32", "size": "n * T"}]
})js");
  EXPECT_EQ(message.rfind(at(8), 0), 0u) << message;
  EXPECT_NE(message.find("unknown name 'T'"), std::string::npos) << message;
}

TEST_F(InlineSpec, SeedsAndReferenceConfigsMustBeLegal) {
  auto message =
      error_of(std::string(minimal_head) +
               R"js(  "knobs": [{"name": "T", "kind": "power_of_two", "min": 1, "max": 8}],
  "seeds": [
    {"name": "big", "config": {"T": 3}}
  ]
})js");
  EXPECT_EQ(message.rfind(at(9), 0), 0u) << message;
  EXPECT_NE(message.find("seeds/0/config"), std::string::npos) << message;

  message = error_of(std::string(minimal_head) +
                     R"js(  "knobs": [{"name": "T", "kind": "power_of_two", "min": 1, "max": 8}],
  "check": {"config": {"U": 1}}
})js");
  EXPECT_EQ(message.rfind(at(8), 0), 0u) << message;

  message = error_of(std::string(minimal_head) +
                     R"js(  "knobs": [{"name": "T", "kind": "power_of_two", "min": 1, "max": 8}],
  "check": {"tolerance": 0.1}
})js");
  EXPECT_NE(message.find("expected 'entry' (a reference kernel"), std::string::npos) << message;
}

// The kernel's own parameter list (issue 32): each mistake named at its place.
TEST_F(InlineSpec, ArgumentsNameTheirBuffersAndTypes) {
  const std::string head =
      std::string(minimal_head) +
      R"js(  "knobs": [{"name": "T", "kind": "power_of_two", "min": 1, "max": 8}],
  "buffers": [{"name": "out", "type": "u8", "size": 4, "role": "output"},
              {"name": "in", "type": "f64", "size": 4}],
)js";
  const KernelSpec spec = parse(head + R"js(  "arguments": [{"buffer": "in"},
    {"name": "n", "type": "i32", "value": "4"}, {"buffer": "out"},
    {"name": "alpha", "type": "f32", "value": 0.5}]
})js");
  ASSERT_EQ(spec.arguments.size(), 4u);
  EXPECT_EQ(spec.arguments[0].buffer, 1);
  EXPECT_EQ(spec.arguments[1].type, "i32");
  EXPECT_EQ(spec.arguments[2].name, "out");
  EXPECT_EQ(spec.arguments[3].value.evaluate(spec.problem, Device{}), 0.5);

  std::string message = error_of(head + R"js(  "arguments": [{"buffer": "inn"}, {"buffer": "out"}]
})js");
  EXPECT_NE(message.find("arguments/0/buffer: no buffer 'inn' (buffers: out, in)"),
            std::string::npos)
      << message;
  message = error_of(head + R"js(  "arguments": [{"buffer": "in"}, {"buffer": "out"},
    {"name": "n", "type": "int", "value": 4}]
})js");
  EXPECT_NE(message.find("arguments/2/type: expected one of f32, f64, i32, i64, u32, u64"),
            std::string::npos)
      << message;
  message = error_of(head + R"js(  "arguments": [{"buffer": "in"}]
})js");
  EXPECT_NE(message.find("buffer 'out' is neither an argument nor a constant's fill"),
            std::string::npos)
      << message;
  message =
      error_of(head + R"js(  "scalars": [4], "arguments": [{"buffer": "in"}, {"buffer": "out"}]
})js");
  EXPECT_NE(message.find("give either 'arguments'"), std::string::npos) << message;
  message = error_of(head + R"js(  "arguments": [{"buffer": "in"}, {"buffer": "out"}],
  "constants": [{"symbol": "c", "buffer": "in"}]
})js");
  EXPECT_NE(message.find("constants: only cuda specs"), std::string::npos) << message;
}

// A reference kernel with definitions of its own (Kernel Tuner's run_kernel params), and Kernel
// Tuner's grid: ceil(problem size / product of the divisors).
TEST_F(InlineSpec, ReferenceConfigAndGridDivisors) {
  std::string text = std::string(minimal_head) +
                     R"js(  "knobs": [{"name": "T", "kind": "power_of_two", "min": 1, "max": 8},
            {"name": "U", "kind": "enum", "choices": [1, 3]}],
  "check": {"entry": "naive", "config": {"T": 2}},
  "launch": {"problem_size": ["n", 10], "grid_div": {"x": ["T", "U"]}, "block": ["T"]}
})js";
  text.replace(text.find(R"("backend": "cpu")"), 16, R"("backend": "cuda")");
  const KernelSpec spec = parse(text);
  EXPECT_EQ(spec.check->entry, "naive");
  EXPECT_EQ(spec.check->reference_config->at("T"), Value(2));
  const Config config = spec.tuning->space.complete({{"T", 8}, {"U", 3}});
  const Problem problem = spec.resolve({});
  EXPECT_EQ(spec.launch->grid[0].evaluate(config, problem, Device{}), 3);  // ceil(64 / 24)
  EXPECT_EQ(spec.launch->grid[1].evaluate(config, problem, Device{}), 10);
  EXPECT_EQ(spec.launch->grid[2].evaluate(config, problem, Device{}), 1);
  // A block whose x side is a knob: the first round prefers whole warps (T = 1..8 has none).
  const Space& space = spec.tuning->space;
  ASSERT_EQ(space.preferences().size(), 1u);
  EXPECT_EQ(space.preferences()[0].name,
            "the thread block's x side (T) is a whole number of warps");
  EXPECT_FALSE(space.preferred(config, problem, Device{}));
  text.replace(text.find(R"("problem_size")"), 0, R"("grid": [1], )");
  EXPECT_NE(error_of(text).find("give either 'grid' or 'problem_size'"), std::string::npos);
}

// A block made of knobs: configs past CUDA's thread block limits (1024 threads, sides of 1024,
// 1024 and 64) are illegal, so no search spends a launch on them; a block without knobs adds no
// constraint.
TEST_F(InlineSpec, ThreadBlocksPastCudasLimitsAreIllegal) {
  std::string text =
      std::string(minimal_head) +
      R"js(  "knobs": [{"name": "X", "kind": "enum", "choices": [32, 96, 1024, 2048]},
            {"name": "Y", "kind": "enum", "choices": [1, 8, 32]},
            {"name": "Z", "kind": "enum", "choices": [1, 128]}],
  "launch": {"grid": [1], "block": ["X", "Y", "Z"]}
})js";
  text.replace(text.find(R"("backend": "cpu")"), 16, R"("backend": "cuda")");
  const KernelSpec spec = parse(text);
  const Space& space = spec.tuning->space;
  const Problem problem = spec.resolve({});
  auto legal = [&](int x, int y, int z) {
    return space.legal(space.complete({{"X", x}, {"Y", y}, {"Z", z}}), problem, Device{});
  };
  EXPECT_TRUE(legal(32, 32, 1));    // 1024 threads
  EXPECT_TRUE(legal(1024, 1, 1));   // a side of 1024
  EXPECT_FALSE(legal(96, 32, 1));   // 3072 threads
  EXPECT_FALSE(legal(2048, 1, 1));  // a side past 1024
  EXPECT_FALSE(legal(32, 1, 128));  // a z side past 64
  const auto& constraints = space.constraints();
  ASSERT_EQ(constraints.size(), 1u);
  EXPECT_EQ(constraints[0].name,
            "the thread block (X x Y x Z) has at most 1024 threads and sides of 1024, 1024 and 64");
  text.replace(text.find(R"("block": ["X", "Y", "Z"])"), 24, R"("block": [256])");
  EXPECT_TRUE(parse(text).tuning->space.constraints().empty());
}

// Buffer roles: an unknown one named with the legal ones; an inout takes a fill as an input does;
// a spec without a check whose buffers include an output or an inout is checked against its
// default config, one with inputs only is not checked.
TEST_F(InlineSpec, BufferRolesAndTheDefaultConfigCheck) {
  const std::string head =
      std::string(minimal_head) +
      R"js(  "knobs": [{"name": "T", "kind": "power_of_two", "min": 1, "max": 8}],
)js";
  std::string message = error_of(head + R"js(  "buffers": [{"name": "x", "type": "f32", "size": "n",
               "role": "inplace"}]
})js");
  EXPECT_EQ(message.rfind(at(9), 0), 0u) << message;
  EXPECT_NE(message.find(
                "buffers/0/role: expected one of input, output, scratch, inout, partial_sums, got "
                "\"inplace\""),
            std::string::npos)
      << message;
  message = error_of(head + R"js(  "buffers": [{"name": "x", "type": "f32", "size": "n",
               "role": "output", "fill": "zero"}]
})js");
  EXPECT_NE(message.find("buffers/0/fill: only input and inout buffers have a fill"),
            std::string::npos)
      << message;

  const KernelSpec inout = parse(head + R"js(  "buffers": [{"name": "x", "type": "f32", "size": "n",
               "role": "inout", "fill": "zero"}]
})js");
  EXPECT_EQ(inout.buffers[0].role, BufferRole::inout);
  EXPECT_EQ(inout.buffers[0].fill, BufferFill::zero);
  ASSERT_TRUE(inout.check.has_value());
  EXPECT_TRUE(inout.check->entry.empty());
  EXPECT_FALSE(inout.check->reference_config.has_value());
  EXPECT_EQ(checked_against(inout), "the default config");

  const KernelSpec inputs =
      parse(head + R"js(  "buffers": [{"name": "x", "type": "f32", "size": "n"}]
})js");
  EXPECT_FALSE(inputs.check.has_value());
  EXPECT_EQ(checked_against(inputs), "");
  const KernelSpec naive = parse(head + R"js(  "buffers": [{"name": "x", "type": "f32", "size": "n",
               "role": "output"}],
  "check": {"entry": "naive"}
})js");
  EXPECT_EQ(checked_against(naive), "the reference kernel 'naive'");
}

TEST_F(InlineSpec, CudaSpecsCarryALaunchShape) {
  std::string head = minimal_head;
  head.replace(head.find("\"cpu\""), 5, "\"cuda\"");
  auto message = error_of(head + R"js("knobs": [{"name": "T", "kind": "boolean"}]})js");
  EXPECT_NE(message.find("needs a 'launch'"), std::string::npos) << message;

  auto spec = parse(
      head +
      R"js(  "knobs": [{"name": "BM", "kind": "power_of_two", "min": 16, "max": 128, "default": 32}],
  "buffers": [{"name": "x", "type": "bf16", "size": "n * n", "role": "output"}],
  "launch": {"grid": ["cdiv(n, BM)", "cdiv(n, BM)"], "block": [128], "shared_memory": "BM * 64 * 2"}
})js");
  ASSERT_TRUE(spec.launch);
  auto config = spec.tuning->space.default_config();
  EXPECT_EQ(spec.launch->grid[0].evaluate(config, spec.problem, Device{}), 2);
  EXPECT_EQ(spec.launch->grid[2].evaluate(config, spec.problem, Device{}), 1);
  EXPECT_EQ(spec.launch->block[0].evaluate(config, spec.problem, Device{}), 128);
  EXPECT_TRUE(spec.tuning->space.preferences().empty());  // a constant block: nothing to prefer
  EXPECT_EQ(spec.launch->shared_memory.evaluate(config, spec.problem, Device{}), 32 * 64 * 2);
  EXPECT_EQ(spec.compile.compiler, "nvcc");

  message = error_of(std::string(minimal_head) + R"js("knobs": [{"name": "T", "kind": "boolean"}],
  "launch": {"grid": [1], "block": [1]}})js");
  EXPECT_NE(message.find("only cuda specs"), std::string::npos) << message;
}

}  // namespace
}  // namespace cutune
