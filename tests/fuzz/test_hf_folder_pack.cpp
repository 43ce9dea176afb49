// The hf_folder fuzz target's input format: if unpacking went wrong, every input would end in
// a typed "file missing" error and the target would pass without reaching the loader.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/model/hf_model_loader.h"
#include "tests/fuzz/hf_folder_pack.h"
#include "tests/testdata.h"

namespace fs = std::filesystem;
using kvw::fuzz::PackedFile;
using kvw::fuzz::unpack_files;

namespace {

std::string names_and_bytes(const std::vector<PackedFile>& files) {
    std::string out;
    for (const PackedFile& f : files) out += f.name + "=[" + std::string(f.bytes) + "] ";
    return out;
}

}  // namespace

class TestHfFolderPack : public QObject {
    Q_OBJECT

private slots:
    void files_run_to_the_newline_before_the_next_marker() {
        QCOMPARE(names_and_bytes(unpack_files("@@file a.json\n{}\n@@file b\nB\n")),
                 std::string("a.json=[{}] b=[B\n] "));
    }

    void an_empty_file_and_a_preamble() {
        QCOMPARE(names_and_bytes(unpack_files("junk @@file x\n\n@@file a\n\n@@file b\nB")),
                 std::string("a=[] b=[B] "));
    }

    void a_marker_inside_a_line_is_content() {
        QCOMPARE(names_and_bytes(unpack_files("@@file a\nx @@file b\ny")),
                 std::string("a=[x @@file b\ny] "));
    }

    void names_that_are_not_plain_file_names_and_repeats_are_skipped() {
        QCOMPARE(names_and_bytes(unpack_files("@@file ../up\n1\n@@file a/b\n2\n@@file ..\n3\n"
                                              "@@file ok\n4\n@@file ok\n5\n@@file \n6")),
                 std::string("ok=[4] "));
        QCOMPARE(unpack_files("@@file no-newline-after-the-name").size(), size_t(0));
    }

    // The generated seed unpacks into a folder the loader accepts: fuzzing starts deep.
    void the_seed_folder_loads() {
        std::ifstream in(kvw::test::testdata_path("fuzz_seeds/hf_folder/sharded.pack"),
                         std::ios::binary);
        QVERIFY(in.good());
        const std::string packed{std::istreambuf_iterator<char>(in),
                                 std::istreambuf_iterator<char>()};
        const fs::path folder = fs::temp_directory_path() / "kvw-test-hf-folder-pack";
        fs::remove_all(folder);
        fs::create_directories(folder);
        kvw::fuzz::write_files(unpack_files(packed), folder);
        QVERIFY(fs::exists(folder / "model.safetensors.index.json"));
        const auto model = kvw::load_hf_model(folder.string());
        QCOMPARE(model->config.n_layers, 1);
        QCOMPARE(model->config.vocab_size, 269);
        fs::remove_all(folder);
    }
};

QTEST_APPLESS_MAIN(TestHfFolderPack)
#include "test_hf_folder_pack.moc"
