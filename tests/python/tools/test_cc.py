"""pyasc-cc: the launch-syntax translator, #line mapping, the driver and its usage errors."""
import os
import re
import subprocess
import sys

import pytest

from pyasc.tools import asc_translate, cc

PROLOGUE = '#include "asc/kernel/debug_launch.h"\n#line 1 "a.asc"\n'


def tr(src, path="a.asc"):
    out = asc_translate.translate(src, path)
    assert out.startswith(f'#include "asc/kernel/debug_launch.h"\n#line 1 "{path}"\n')
    body = out.split("\n", 2)[2]
    # Lines never move: the same number of newlines, in the same lines.
    assert body.count("\n") == src.count("\n")
    return body


# ---------------------------------------------------------------- translation


def test_basic_launch():
    assert tr("add_custom<<<8, nullptr, stream>>>(x, y, z);\n") == (
        '::asc::detail::chevron_launch("add_custom", add_custom, 8, nullptr, stream)(x, y, z);\n')


def test_two_argument_config_and_spaces():
    assert tr("k <<< 4, 0 >>> ( a );") == '::asc::detail::chevron_launch("k", k,   4, 0 ) ( a );'


def test_templated_kernels():
    assert tr("k<float, 4><<<1, nullptr, s>>>(p);") == (
        '::asc::detail::chevron_launch("k<float, 4>", k<float, 4>, 1, nullptr, s)(p);')
    # Nested templates ending in '>>' right before '<<<'.
    assert tr("k<Foo<int>><<<2, 0, s>>>(q);") == (
        '::asc::detail::chevron_launch("k<Foo<int>>", k<Foo<int>>, 2, 0, s)(q);')
    # Template arguments with parentheses and a qualified name.
    assert tr("ns::k<T, (N > 2)><<<b, 0, s>>>(q);") == (
        '::asc::detail::chevron_launch("ns::k<T, (N > 2)>", ns::k<T, (N > 2)>, b, 0, s)(q);')
    assert tr("x = 1; ::g<<<1, 0, 0>>>(p);") == 'x = 1; ::asc::detail::chevron_launch("::g", ::g, 1, 0, 0)(p);'


def test_nested_arguments_and_config_expressions():
    src = "k<<<Dim(a, b), nullptr, streams[i]>>>(f(g(x), h[2]), std::vector<int>{1, 2}, [&] { return (a >> 1); }());"
    assert tr(src) == (
        '::asc::detail::chevron_launch("k", k, Dim(a, b), nullptr, streams[i])(f(g(x), h[2]), '
        "std::vector<int>{1, 2}, [&] { return (a >> 1); }());")
    assert tr("k<<<(n >> 1), 0, s>>>(p >> 2);") == (
        '::asc::detail::chevron_launch("k", k, (n >> 1), 0, s)(p >> 2);')


def test_launch_spanning_lines_keeps_every_line():
    src = ("void f() {\n"
           "  k<float,\n"
           "    8><<<blockDim,\n"
           "         nullptr, stream>>>(x,\n"
           "                            g(y,\n"
           "                              z));\n"
           "  after();\n"
           "}\n")
    out = tr(src)
    lines = out.split("\n")
    assert lines[1] == '  ::asc::detail::chevron_launch("k<float, 8>", k<float,'
    assert lines[2] == "    8>, blockDim,"
    assert lines[3] == "         nullptr, stream)(x,"
    assert lines[4] == "                            g(y,"
    assert lines[6] == "  after();"


def test_several_launches_on_one_line():
    assert tr("a<<<1,0,s>>>(x); b<<<2,0,s>>>(y);") == (
        '::asc::detail::chevron_launch("a", a, 1,0,s)(x); ::asc::detail::chevron_launch("b", b, 2,0,s)(y);')


def test_comments_strings_and_literals_are_left_alone():
    src = ('// k<<<1,0,s>>>(x) in a comment\n'
           '/* k<<<1,0,s>>>(x)\n   still a comment */\n'
           'const char* s = "k<<<1,0,s>>>(x) \\" <<<";\n'
           "const char* r = R\"xy(k<<<1>>>(x) )\" )xy\";\n"
           "char c = '<'; int n = 1'000'000; auto u = u8'a';\n"
           "k<<<1, /* >>> */ 0, s>>>(/* ) */ x); // k<<<\n")
    out = tr(src)
    assert out.split("\n")[:6] == src.split("\n")[:6]
    assert out.split("\n")[6] == '::asc::detail::chevron_launch("k", k, 1, /* >>> */ 0, s)(/* ) */ x); // k<<<'


def test_no_launch_is_unchanged_and_crlf_kept():
    src = "#include \"kernel_operator.h\"\r\nint x = a << b;\r\nbool y = a < b && c > d;\r\n"
    assert tr(src) == src
    assert tr("k<<<1,0,s>>>(x);\r\nnext;\r\n") == '::asc::detail::chevron_launch("k", k, 1,0,s)(x);\r\nnext;\r\n'


def test_line_path_is_escaped():
    out = asc_translate.translate("int x;\n", 'dir with "quote"\\f.asc')
    assert out.split("\n")[1] == '#line 1 "dir with \\"quote\\"\\\\f.asc"'


def test_find_launches_reports_lines():
    ls = asc_translate.find_launches("a;\nb;\nk<int><<<1,0,s>>>(x);\n\nq<<<2,0,s>>>(y);")
    assert [(l["kernel"], l["config"], l["line"]) for l in ls] == [("k<int>", "1,0,s", 3), ("q", "2,0,s", 5)]


@pytest.mark.parametrize("src, message", [
    ("int a;\nk<<<1, 0, s(x);\n", r"b\.asc:2: '<<<' without a matching '>>>'"),
    ("int a;\n\nk<<<1, 0, s>>>;\n", r"b\.asc:3: '>>>' must be followed by the kernel arguments"),
    ("x = <<<1, 0, s>>>(p);\n", r"b\.asc:1: '<<<' does not follow a kernel name"),
    ("k<<<>>>(p);\n", r"b\.asc:1: empty launch configuration"),
    ("k<<<1, 0, s>>>(p, (q);\n", r"b\.asc:1: unterminated '\('"),
    ("\n\n\nk<<<1, 0, s>>>(p]);\n", r"b\.asc:4: unbalanced '\]'"),
])
def test_translation_errors_name_file_and_line(src, message):
    with pytest.raises(asc_translate.TranslateError, match=message):
        asc_translate.translate(src, "b.asc")


def test_translate_file_only_rewrites_when_changed(tmp_path):
    src = tmp_path / "k.asc"
    src.write_text("k<<<1,0,s>>>(x);\n")
    out = tmp_path / "sub" / "k.cpp"
    asc_translate.translate_file(str(src), str(out))
    text = out.read_text()
    assert text == f'#include "asc/kernel/debug_launch.h"\n#line 1 "{src}"\n' + (
        '::asc::detail::chevron_launch("k", k, 1,0,s)(x);\n')
    os.utime(out, (1, 1))
    asc_translate.translate_file(str(src), str(out))
    assert os.stat(out).st_mtime == 1  # unchanged text: file untouched


# ---------------------------------------------------------------- usage errors


def run_cc(args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "pyasc.tools.cc", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


@pytest.mark.parametrize("args, message", [
    ([], "usage"),
    (["-O2", "-o", "prog"], "no input files"),
    (["missing.asc", "-o", "prog"], "no such file: missing.asc"),
    (["-o"], "option '-o' needs a value"),
    (["-x"], "option '-x' needs a language"),
    (["--translate", "only_one"], "usage: pyasc-cc --translate IN OUT"),
    (["--translate", "nope.asc", "out.cpp"], "no such file: nope.asc"),
])
def test_usage_errors_exit_2(tmp_path, args, message):
    r = run_cc(args, cwd=tmp_path)
    assert r.returncode == 2, r
    assert message in (r.stderr + r.stdout)


def test_untranslatable_source_exits_2_with_location(tmp_path):
    (tmp_path / "bad.asc").write_text("int main() {\n  k<<<1, 0, s(x);\n}\n")
    r = run_cc(["bad.asc", "-o", "prog"], cwd=tmp_path)
    assert r.returncode == 2
    assert "pyasc-cc: error: bad.asc:2: '<<<' without a matching '>>>'" in r.stderr
    r = run_cc(["--translate", "bad.asc", "out.cpp"], cwd=tmp_path)
    assert r.returncode == 2 and "bad.asc:2:" in r.stderr


def test_help_and_dirs():
    r = run_cc(["--help"])
    assert r.returncode == 0 and "pyasc-cc" in r.stdout
    inc, lib = cc.package_dirs()
    assert run_cc(["--print-include-dir"]).stdout.strip() == inc
    assert os.path.isfile(os.path.join(inc, "kernel_operator.h"))
    assert os.path.isfile(os.path.join(inc, "tikicpulib.h"))
    assert os.path.isfile(os.path.join(inc, "asc", "kernel", "debug_launch.h"))
    assert run_cc(["--print-lib-dir"]).stdout.strip() == lib
    assert any(f.startswith("libasc.so") for f in os.listdir(lib))


def test_command_line_assembly(tmp_path, monkeypatch):
    (tmp_path / "k.asc").write_text("int main() { return 0; }\n")
    (tmp_path / "h.cpp").write_text("int h() { return 1; }\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CXX", "ccache g++")
    cmd, translated, opts = cc.build_command(
        ["-DX=1", "k.asc", "h.cpp", "-include", "h.cpp", "-O3", "-Wall", "-o", "prog", "--check"], str(tmp_path / "t"))
    inc, lib = cc.package_dirs()
    assert cmd[:2] == ["ccache", "g++"]
    assert cmd[2:4] == ["-iquote", str(tmp_path)]
    assert "-std=c++17" in cmd and "-O2" not in cmd and "-O3" in cmd
    assert ["-isystem", inc] == cmd[cmd.index("-isystem"):cmd.index("-isystem") + 2]
    assert "-DASC_KERNEL_CHECK=1" in cmd
    assert [os.path.basename(o) for _, o in translated] == ["k.cpp"]
    assert "h.cpp" in cmd and cmd[cmd.index("-include") + 1] == "h.cpp"  # a value, not an input
    assert cmd[-4:] == [f"-L{lib}", "-lasc", f"-Wl,-rpath,{lib}", "-pthread"]
    # --asc translates .cpp inputs too; -c does not link; -std is the user's.
    cmd, translated, _ = cc.build_command(["--asc", "-c", "h.cpp", "-std=c++20"], str(tmp_path / "u"))
    assert [s for s, _ in translated] == ["h.cpp"]
    assert "-lasc" not in cmd and "-std=c++17" not in cmd and "-O2" in cmd
    # -x asc applies to the inputs that follow it, until -x none.
    cmd, translated, _ = cc.build_command(["h.cpp", "-x", "asc", "h.cpp", "-x", "none", "h.cpp"], str(tmp_path / "v"))
    assert len(translated) == 1 and cmd.count("h.cpp") == 2 and cmd.count("none") == 1


# ---------------------------------------------------------------- compiling

KERNEL = r'''#include <cstdio>
#include "acl/acl.h"
#include "kernel_operator.h"

template <typename T, int SCALE>
__global__ __aicore__ void scale_kernel(GM_ADDR x, GM_ADDR y, uint32_t n) {
  AscendC::GlobalTensor<T> gx, gy;
  gx.SetGlobalBuffer((__gm__ T*)x + n * AscendC::GetBlockIdx(), n);
  gy.SetGlobalBuffer((__gm__ T*)y + n * AscendC::GetBlockIdx(), n);
  AscendC::TPipe pipe;
  AscendC::TBuf<> buf;
  pipe.InitBuffer(buf, n * sizeof(T));
  AscendC::LocalTensor<T> t = buf.Get<T>();
  AscendC::DataCopy(t, gx, n);
  AscendC::Muls(t, t, (T)SCALE, n);
  AscendC::DataCopy(gy, t, n);
}

extern "C" __global__ __aicore__ void check_kernel(GM_ADDR x) {
  AscendC::printf("x0=%d\n", (int)((int32_t*)x)[0]);
  assert(((int32_t*)x)[0] == 7, "x0 must be 7, got %d", (int)((int32_t*)x)[0]);
}

int main() {
  aclrtStream stream = nullptr;
  if (aclInit(nullptr) || aclrtSetDevice(0) || aclrtCreateStream(&stream)) return 10;
  const uint32_t n = 64, blocks = 4;
  uint8_t *x, *y;
  aclrtMalloc((void**)&x, n * blocks * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc((void**)&y, n * blocks * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  for (uint32_t i = 0; i < n * blocks; ++i) ((float*)x)[i] = (float)i;
  scale_kernel<float,
               3><<<blocks, nullptr,
                    stream>>>(x, y,
                              n);
  if (aclrtSynchronizeStream(stream)) return 11;
  for (uint32_t i = 0; i < n * blocks; ++i)
    if (((float*)y)[i] != 3.0f * i) return 12;
  ((int32_t*)x)[0] = 7;
  check_kernel<<<1, 0, stream>>>(x);
  if (aclrtSynchronizeStream(stream)) return 13;
  ((int32_t*)x)[0] = 8;
  check_kernel<<<1, 0, stream>>>(x);
  int rc = aclrtSynchronizeStream(stream);
  std::printf("rc=%d checks=%d\n", rc, (int)asc::kernel::debug::kernel_checks_requested());
  std::printf("msg=%s\n", aclGetRecentErrMsg());
  aclrtFree(x);
  aclrtFree(y);
  aclrtDestroyStream(stream);
  aclFinalize();
  return 0;
}
'''


def test_compile_and_run_asc_program(tmp_path):
    src = tmp_path / "prog.asc"
    src.write_text(KERNEL)
    r = run_cc(["prog.asc", "-O1", "-o", "prog", "-v", "--check"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "-std=c++17" in r.stderr and "-lasc" in r.stderr and "ASC_KERNEL_CHECK" in r.stderr
    # -v shows each translated launch at its original line.
    launch_line = KERNEL.split("\n").index("  check_kernel<<<1, 0, stream>>>(x);") + 1
    assert (f'pyasc-cc: prog.asc:{launch_line}: ::asc::detail::chevron_launch("check_kernel", check_kernel, 1, 0, '
            f'stream)(x);') in r.stderr, r.stderr
    env = dict(os.environ)
    env.pop("ASCEND_DEBUG", None)
    p = subprocess.run(["./prog"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    line = KERNEL.split("\n").index('  assert(((int32_t*)x)[0] == 7, "x0 must be 7, got %d", (int)((int32_t*)x)[0]);') + 1
    assert p.stdout.split("\n")[:3] == [
        "[Block 0/1] x0=7",
        "[Block 0/1] x0=8",
        f"[Block 0/1] [ASSERT] prog.asc:{line}: Assertion `((int32_t*)x)[0] == 7' failed. x0 must be 7, got 8",
    ]
    assert "rc=507015 checks=1" in p.stdout
    assert re.search(r"msg=.*\[check_kernel\] block 0 of 1.*\[assert\] kernel 'check_kernel' block 0 of 1: "
                     rf"prog\.asc:{line}: Assertion", p.stdout), p.stdout


BAD = '''#include "kernel_operator.h"

extern "C" __global__ __aicore__ void k(GM_ADDR x, uint32_t n) {}

void launch(uint8_t* x, void* s) {
  k<<<8,
      nullptr, s>>>(x,
                    16);
  int oops = undefined_symbol_here;
}

void launch2(uint8_t* x, void* s) {
  k<<<1, nullptr, s>>>(x, 16, 99);
}
'''


def test_diagnostics_point_at_the_original_file_and_line(tmp_path):
    (tmp_path / "bad.asc").write_text(BAD)
    r = run_cc(["-fsyntax-only", "-O0", "bad.asc"], cwd=tmp_path)
    assert r.returncode != 0
    # g++ names the user's file and the line of the error, after a 3-line launch.
    assert re.search(r"^bad\.asc:9:\d+: error: .undefined_symbol_here. was not declared", r.stderr, re.M), r.stderr
    # A launch with the wrong number of arguments is reported on the launch line.
    assert re.search(r"^bad\.asc:13:\d+:", r.stderr, re.M), r.stderr
    assert "number of arguments differs" in r.stderr


def test_separate_compilation_keep_tmp_and_cpp_inputs(tmp_path):
    (tmp_path / "kern.asc").write_text(
        '#include "kernel_operator.h"\n'
        '#include "common.h"\n'
        'extern "C" __global__ __aicore__ void fill(GM_ADDR p) {\n'
        '  ((int32_t*)p)[AscendC::GetBlockIdx()] = VALUE + (int32_t)AscendC::GetBlockIdx();\n'
        '}\n'
        'void run_fill(uint8_t* p, void* s) { fill<<<4, nullptr, s>>>(p); }\n')
    (tmp_path / "common.h").write_text("#define VALUE 40\n")
    (tmp_path / "main.cpp").write_text(
        '#include <cstdio>\n#include "acl/acl.h"\n#include "kernel_operator.h"\n'
        'extern "C" __global__ __aicore__ void fill(GM_ADDR p);\n'
        'void run_fill(uint8_t* p, void* s);\n'
        'int main() {\n'
        '  aclrtStream s; aclrtCreateStream(&s); uint8_t* p; aclrtMalloc((void**)&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);\n'
        '  run_fill(p, s);\n'
        '  if (aclrtSynchronizeStream(s)) return 3;\n'
        '  fill<<<2, nullptr, s>>>(p + 16);\n'
        '  if (aclrtSynchronizeStream(s)) return 4;\n'
        '  for (int i = 0; i < 6; ++i) std::printf("%d ", ((int*)p)[i]);\n'
        '  return 0;\n}\n')
    os.mkdir(tmp_path / "obj")
    r = run_cc(["-c", "kern.asc", "-O0", "-o", "obj/kern.o", "--keep-tmp"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    kept = re.search(r"kern\.asc -> (\S+)", r.stderr).group(1)
    text = open(kept).read()
    assert text.startswith('#include "asc/kernel/debug_launch.h"\n#line 1 "kern.asc"\n#include "kernel_operator.h"\n')
    assert '::asc::detail::chevron_launch("fill", fill, 4, nullptr, s)(p);' in text
    # Without --asc the .cpp with a launch is not C++.
    r = run_cc(["main.cpp", "obj/kern.o", "-O0", "-o", "prog"], cwd=tmp_path)
    assert r.returncode != 0 and "main.cpp:10" in r.stderr
    r = run_cc(["--asc", "main.cpp", "obj/kern.o", "-O0", "-o", "prog"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    p = subprocess.run(["./prog"], cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout == "40 41 42 43 40 41 ", p.stdout


def test_console_script_is_declared():
    from importlib import metadata

    eps = metadata.entry_points()
    scripts = eps.select(group="console_scripts") if hasattr(eps, "select") else eps.get("console_scripts", [])
    assert any(e.name == "pyasc-cc" and e.value == "pyasc.tools.cc:main" for e in scripts)
