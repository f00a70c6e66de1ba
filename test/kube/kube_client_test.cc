#include "kube/kube_client.h"

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/event_recorder.h"
#include "kube/exec_credential.h"
#include "kube/kube_connection.h"
#include "kube/kubeconfig.h"
#include "net/curl_http_client.h"
#include "test/testing/fake_batch_api.h"
#include "test/testing/fake_kube_api_server.h"
#include "test/testing/status_matchers.h"
#include "test/testing/temp_dir.h"
#include "test/testing/test_certificates.h"

namespace carbonroute::kube {
namespace {

using ::carbonroute::testing::FakeKubeApiServer;
using ::carbonroute::testing::IsOk;
using ::carbonroute::testing::ScopedTempDir;
using ::carbonroute::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kNode[] = R"({"metadata":{"name":"a","resourceVersion":"1"}})";

std::unique_ptr<net::CurlHttpClient> Curl() {
  absl::StatusOr<std::unique_ptr<net::CurlHttpClient>> http =
      net::CurlHttpClient::Create("kube-client-test");
  EXPECT_TRUE(http.ok());
  return *std::move(http);
}

class KubeClientTest : public ::testing::Test {
 protected:
  // A kubeconfig naming `server` with `cluster_extra` and `user` lines.
  KubeConnection FromKubeconfig(const std::string& server, const std::string& cluster_extra,
                                const std::string& user) {
    const std::string file = dir_.File("kubeconfig");
    std::ofstream(file) << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                        << "clusters:\n- name: test\n  cluster:\n    server: " << server << "\n"
                        << cluster_extra << "users:\n- name: me\n  user:\n"
                        << user
                        << "contexts:\n- name: test\n  context: {cluster: test, user: me}\n";
    absl::StatusOr<KubeConnection> connection = ResolveKubeConnection(
        {.kubeconfig = file}, {.getenv = [](const char*) { return nullptr; }});
    EXPECT_THAT(connection, IsOk());
    return connection.ok() ? *connection : KubeConnection{};
  }

  ScopedTempDir dir_;
  const testing::TestCertificates pki_ = testing::MakeTestCertificates(dir_.path());
  std::unique_ptr<net::CurlHttpClient> http_ = Curl();
};

TEST_F(KubeClientTest, MutualTlsWithTheKubeconfigsClientCertificate) {
  FakeKubeApiServer server(pki_.server_cert_file, pki_.server_key_file);
  server.RequireClientCertificates(pki_.ca_file);
  server.SetNodes({kNode}, "7");
  const KubeClient client(
      FromKubeconfig(server.base_url(), "    certificate-authority: " + pki_.ca_file + "\n",
                     "    client-certificate: " + pki_.client_cert_file +
                         "\n    client-key: " + pki_.client_key_file + "\n"),
      *http_);
  absl::StatusOr<std::string> node = client.Get("/api/v1/nodes/a");
  ASSERT_THAT(node, IsOk());
  EXPECT_THAT(*node, HasSubstr("\"name\":\"a\""));
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].client_cn, "carbonroute-test-client");

  // Without a client certificate the handshake fails: a transport error.
  const KubeClient anonymous(
      FromKubeconfig(server.base_url(), "    certificate-authority: " + pki_.ca_file + "\n",
                     "    token: t\n"),
      *http_);
  EXPECT_THAT(anonymous.Get("/api/v1/nodes/a"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("")));
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(KubeClientTest, InlineCertificatesAndATlsServerName) {
  FakeKubeApiServer server(pki_.server_cert_file, pki_.server_key_file);
  server.RequireClientCertificates(pki_.ca_file);
  server.SetNodes({kNode}, "7");
  auto base64 = [](const std::string& file) {
    std::ifstream in(file);
    std::string pem((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return absl::Base64Escape(pem);
  };
  const std::string user = "    client-certificate-data: " + base64(pki_.client_cert_file) +
                           "\n    client-key-data: " + base64(pki_.client_key_file) + "\n";
  const std::string ca = "    certificate-authority-data: " + base64(pki_.ca_file) + "\n";
  const KubeClient named(
      FromKubeconfig(server.base_url(), ca + "    tls-server-name: kubernetes.default.svc\n", user),
      *http_);
  ASSERT_THAT(named.Get("/api/v1/nodes/a"), IsOk());
  EXPECT_EQ(server.requests().back().server_name, "kubernetes.default.svc");
  EXPECT_EQ(server.requests().back().client_cn, "carbonroute-test-client");
  // A name the certificate does not carry is refused.
  const KubeClient misnamed(
      FromKubeconfig(server.base_url(), ca + "    tls-server-name: other.example\n", user), *http_);
  EXPECT_THAT(misnamed.Get("/api/v1/nodes/a"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("certificate")));
}

TEST_F(KubeClientTest, AnExpiredTokenIsUnauthenticatedWithItsOwnMessage) {
  FakeKubeApiServer server;
  server.RequireAuthorization("Bearer fresh");
  server.SetNodes({kNode}, "7");
  const std::string token = dir_.File("token");
  std::ofstream(token) << "expired\n";
  const KubeClient client({.server = server.base_url(), .origin = "test", .token_file = token},
                          *http_);
  EXPECT_THAT(client.Get("/api/v1/nodes/a"),
              StatusIs(absl::StatusCode::kUnauthenticated,
                       AllOf(HasSubstr("GET /api/v1/nodes/a answered HTTP 401"),
                             HasSubstr("the token has expired or was revoked"))));
  std::ofstream(token) << "fresh\n";  // rotated: read again before the next request
  EXPECT_THAT(client.Get("/api/v1/nodes/a"), IsOk());
}

// An exec credential plugin, as EKS, GKE and AKS kubeconfigs log in: a test plugin that counts
// its runs, records its arguments and environment, says something on stderr and answers an
// ExecCredential; the token it gives is the one the API server sees.
TEST_F(KubeClientTest, AnExecPluginsTokenIsSentAndKeptUntilItExpires) {
  FakeKubeApiServer server;
  server.RequireAuthorization("Bearer plugin-token");
  server.SetNodes({kNode}, "7");
  const std::string plugin = dir_.File("plugin.sh");
  std::ofstream(plugin)
      << "#!/bin/sh\n"
      << "echo run >> " << dir_.File("runs") << "\n"
      << "echo \"$@ $PROFILE $KUBERNETES_EXEC_INFO\" > " << dir_.File("seen") << "\n"
      << "echo 'plugin: refreshing' >&2\n"
      << "cat <<EOF\n"
      << R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
      << R"("status":{"token":"plugin-token","expirationTimestamp":"2030-01-01T00:00:00Z"}})"
      << "\nEOF\n";
  std::filesystem::permissions(plugin, std::filesystem::perms::owner_all);
  const KubeConnection connection = FromKubeconfig(
      server.base_url(), "",
      "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ./plugin.sh\n"
      "      args: [get-token, --cluster, test]\n      env: [{name: PROFILE, value: prod}]\n");
  ASSERT_NE(connection.exec, nullptr);
  const KubeClient client(connection, *http_);
  EXPECT_THAT(client.Get("/api/v1/nodes/a"), IsOk());
  EXPECT_THAT(client.Get("/api/v1/nodes/a"), IsOk());
  EXPECT_EQ(connection.exec->runs(), 1);  // kept: it expires in 2030
  std::ifstream seen(dir_.File("seen"));
  std::string line;
  std::getline(seen, line);
  EXPECT_THAT(line, HasSubstr("get-token --cluster test prod "));
  EXPECT_THAT(line, HasSubstr(R"("apiVersion":"client.authentication.k8s.io/v1",)"
                              R"("kind":"ExecCredential","spec":{"interactive":false})"));
  // Revoked: the API server answers 401, and the next request runs the plugin again.
  server.RequireAuthorization("Bearer another");
  EXPECT_THAT(client.Get("/api/v1/nodes/a"),
              StatusIs(absl::StatusCode::kUnauthenticated, ::testing::_));
  EXPECT_THAT(client.Get("/api/v1/nodes/a"),
              StatusIs(absl::StatusCode::kUnauthenticated, ::testing::_));
  EXPECT_EQ(connection.exec->runs(), 2);
}

TEST(ExecCredential, ExpiryVersionsAndMistakesAsClientGoReadsThem) {
  absl::Time now = absl::FromCivil(absl::CivilSecond(2029, 12, 31, 23, 0, 0), absl::UTCTimeZone());
  const std::string v1beta1 =
      R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",)"
      R"("status":{"token":"t","expirationTimestamp":"2030-01-01T00:00:00Z"}})";
  absl::StatusOr<ExecCredential> read = ParseExecCredential(v1beta1, kExecCredentialV1beta1);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->expires - now, absl::Hours(1));
  EXPECT_THAT(ParseExecCredential(v1beta1, kExecCredentialV1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an ExecCredential of")));
  EXPECT_THAT(ParseExecCredential(R"({"apiVersion":"client.authentication.k8s.io/v1",)"
                                  R"("kind":"ExecCredential","status":{}})",
                                  kExecCredentialV1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("neither a token")));
  // A plugin that is not installed: the kubeconfig's hint; one that fails: its exit status.
  ExecCredentialSource missing({.api_version = kExecCredentialV1,
                                .command = "carbonroute-no-such-plugin",
                                .install_hint = "brew install it",
                                .described_as = "kubeconfig K: user \"u\""});
  EXPECT_THAT(missing.Get(),
              StatusIs(absl::StatusCode::kNotFound, AllOf(HasSubstr("kubeconfig K: user \"u\""),
                                                          HasSubstr("(brew install it)"))));
  ExecCredentialSource failing(
      {.api_version = kExecCredentialV1, .command = "false", .described_as = "user \"u\""});
  EXPECT_THAT(failing.Get(), StatusIs(absl::StatusCode::kUnknown, HasSubstr("exited with 1")));
  // Expiry on the injected clock: the plugin runs again once the credential has expired.
  ScopedTempDir dir;
  const std::string plugin = dir.File("p.sh");
  std::ofstream(plugin) << "#!/bin/sh\necho '" << v1beta1 << "'\n";
  std::filesystem::permissions(plugin, std::filesystem::perms::owner_all);
  ExecCredentialSource source({.api_version = kExecCredentialV1beta1, .command = plugin},
                              [&now] { return now; });
  ASSERT_THAT(source.Get(), IsOk());
  ASSERT_THAT(source.Get(), IsOk());
  EXPECT_EQ(source.runs(), 1);
  now += absl::Hours(2);
  ASSERT_THAT(source.Get(), IsOk());
  EXPECT_EQ(source.runs(), 2);
}

TEST_F(KubeClientTest, AForbiddenVerbNamesTheRbacRuleNeeded) {
  FakeKubeApiServer server;
  server.FailLists(403, 1);
  const KubeClient client({.server = server.base_url()}, *http_);
  ListRequest request{.path = "/api/v1/nodes", .list_kind = "NodeList"};
  EXPECT_THAT(ListAll(
                  client, request, [](const JsonField&) { return absl::OkStatus(); }, nullptr),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       AllOf(HasSubstr("GET /api/v1/nodes answered HTTP 403"),
                             HasSubstr("RBAC does not allow \"list\" on \"nodes\""),
                             HasSubstr("{apiGroups: [\"\"], resources: [\"nodes\"], verbs: "
                                       "[\"list\"]}"))));
}

TEST(RuleFor, VerbResourceAndGroupFromTheRequest) {
  EXPECT_EQ(RuleFor("GET", "/api/v1/nodes?watch=true&resourceVersion=1").Describe(),
            "apiGroups: [\"\"], resources: [\"nodes\"], verbs: [\"watch\"]");
  EXPECT_EQ(RuleFor("GET", "/api/v1/nodes/n1").verb, "get");
  const RbacRule patch = RuleFor("PATCH", "/apis/batch/v1/namespaces/default/jobs/nightly");
  EXPECT_EQ(patch.Describe(), "apiGroups: [\"batch\"], resources: [\"jobs\"], verbs: [\"patch\"]");
  const RbacRule status =
      RuleFor("PUT", "/apis/carbonroute.io/v1alpha1/namespaces/a/carbonplacementpolicies/p/status");
  EXPECT_EQ(status.api_group, "carbonroute.io");
  EXPECT_EQ(status.resource, "carbonplacementpolicies/status");
  EXPECT_EQ(status.verb, "update");
  EXPECT_EQ(RuleFor("POST", "/apis/coordination.k8s.io/v1/namespaces/c/leases").Describe(),
            "apiGroups: [\"coordination.k8s.io\"], resources: [\"leases\"], verbs: [\"create\"]");
  EXPECT_EQ(RuleFor("GET", "/apis/policy.karmada.io/v1alpha1/clusterpropagationpolicies").verb,
            "list");
}

TEST(ApiError, EachStatusItsCode) {
  net::HttpResponse response;
  response.body =
      R"({"kind":"Status","reason":"Conflict","message":"the object has been modified"})";
  response.status = 409;
  EXPECT_THAT(ApiError("PUT", "/x?y=1", response),
              StatusIs(absl::StatusCode::kAborted,
                       "PUT /x answered HTTP 409: Conflict: the object has been modified; read it "
                       "again and retry"));
  for (const auto& [status, code] : std::vector<std::pair<int, absl::StatusCode>>{
           {404, absl::StatusCode::kNotFound},
           {410, absl::StatusCode::kOutOfRange},
           {422, absl::StatusCode::kInvalidArgument},
           {429, absl::StatusCode::kResourceExhausted},
           {503, absl::StatusCode::kUnavailable},
           {400, absl::StatusCode::kFailedPrecondition}}) {
    response.status = status;
    EXPECT_EQ(ApiError("GET", "/x", response).code(), code) << status;
  }
}

TEST(DescribeStatus, ReasonAndMessageElseTheShortenedBody) {
  EXPECT_EQ(DescribeStatus(R"({"kind": "Status", "reason": "Forbidden",
      "message": "nodes is forbidden: User \"system:serviceaccount:carbonroute:collector\" cannot list resource \"nodes\""})"),
            "Forbidden: nodes is forbidden: User \"system:serviceaccount:carbonroute:collector\" "
            "cannot list resource \"nodes\"");
  EXPECT_EQ(DescribeStatus("Bad Gateway"), "Bad Gateway");
  EXPECT_EQ(DescribeStatus(std::string(500, 'x')).size(), 203u);
}

// DELETE removes the object; one already gone is not an error.
TEST(KubeClient, DeleteIsDoneWhenTheObjectIsGone) {
  testing::FakeBatchApi api([] { return absl::FromUnixSeconds(1'800'000'000); });
  api.ServeResource("v1", "configmaps", /*namespaced=*/true, /*status_subresource=*/false);
  api.PutObject("configmaps", {{"apiVersion", "v1"},
                               {"kind", "ConfigMap"},
                               {"metadata", {{"name", "a"}, {"namespace", "default"}}}});
  const KubeClient client({.server = "http://fake"}, api);
  const std::string path = "/api/v1/namespaces/default/configmaps/a";
  EXPECT_THAT(client.Get(path), IsOk());
  EXPECT_THAT(client.Delete(path), IsOk());
  EXPECT_THAT(client.Get(path), StatusIs(absl::StatusCode::kNotFound, ::testing::_));
  EXPECT_THAT(client.Delete(path), IsOk());  // already gone
}

// Pages in order; an expired continue token starts the list again, once.
TEST(ListAll, PagesAndAnExpiredContinueToken) {
  testing::FakeBatchApi api([] { return absl::FromUnixSeconds(1'800'000'000); });
  const absl::Time created = absl::FromUnixSeconds(1'799'999'000);
  for (const char* name : {"a", "b", "c"}) api.AddJob("default", name, created, {});
  api.ExpireContinueTokens(1);
  const KubeClient client({.server = "http://fake"}, api);
  std::vector<std::string> names;
  int restarts = 0;
  absl::StatusOr<ListResult> listed = ListAll(
      client,
      {.path = "/apis/batch/v1/jobs",
       .list_kind = "JobList",
       .label_selector = "carbonroute.io/defer=true",
       .page_size = 1},
      [&](const JsonField& item) -> absl::Status {
        absl::StatusOr<std::string> name = item["metadata"]["name"].RequiredString();
        if (!name.ok()) return name.status();
        names.push_back(*name);
        return absl::OkStatus();
      },
      [&] {
        ++restarts;
        names.clear();
      });
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ(restarts, 1);
  EXPECT_THAT(names, ::testing::ElementsAre("a", "b", "c"));
  EXPECT_EQ(listed->pages, 3);
  EXPECT_FALSE(listed->resource_version.empty());
}

// An object without a namespace gets its Event in "default"; a message past the
// API's 1 KiB is cut (even mid-character: the JSON stays valid).
TEST(EventRecorder, ClusterScopedObjectsAndLongMessages) {
  testing::FakeBatchApi api([] { return absl::FromUnixSeconds(1'800'000'000); });
  const KubeClient client({.server = "http://fake"}, api);
  const EventRecorder recorder(client, "carbonroute-karmada", "replica-1");
  const std::string message = std::string(1023, 'x') + "\xc3\xa9 and more";
  ASSERT_THAT(recorder.Record({.api_version = "policy.karmada.io/v1alpha1",
                               .kind = "ClusterPropagationPolicy",
                               .name = "web"},
                              EventType::kWarning, "DataMissing", message,
                              absl::FromUnixSeconds(1'800'000'000)),
              IsOk());
  ASSERT_EQ(api.events().size(), 1u);
  const nlohmann::json event = api.events()[0];
  EXPECT_EQ(event["metadata"]["namespace"], "default");
  EXPECT_EQ(event["metadata"]["generateName"], "web.");
  EXPECT_FALSE(event["involvedObject"].contains("namespace"));
  EXPECT_EQ(event["type"], "Warning");
  EXPECT_EQ(event["reportingInstance"], "replica-1");
  EXPECT_EQ(event["lastTimestamp"], "2027-01-15T08:00:00Z");
  EXPECT_LE(event["message"].get<std::string>().size(), 1026u);  // a replaced byte is 3
}

}  // namespace
}  // namespace carbonroute::kube
