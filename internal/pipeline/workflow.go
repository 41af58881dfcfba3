package pipeline

// workflowText is the GitHub Actions workflow. Pull requests run the tests
// and `framework diff` (the diff in the job summary) with the read-only
// diff role; pushes to the branch run the tests and deploy the stage with
// the deploy role.
const workflowText = `# Written by ` + "`framework generate-pipeline --github`" + `: test the app on every pull
# request and show what merging it would change in stage <% .DiffStage %>; deploy stage
# <% .Stage %> on every push to <% .Branch %>.
#
# AWS access is through GitHub's OIDC tokens, no stored keys: deploy the roles of
# <% .TemplatePath %> once (see its header), then set the repository
# variables <% .DeployVar %> and <% .DiffVar %> to its outputs.
name: framework

on:
  pull_request:
    branches: [<% .Branch %>]
  push:
    branches: [<% .Branch %>]

permissions:
  contents: read

env:
  AWS_REGION: <% .Region %>
  FRAMEWORK_MODULE: <% .Module %>

jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version-file: go.mod
      - name: Test
        run: go test ./...

  diff:
    if: github.event_name == 'pull_request'
    needs: test
    runs-on: ubuntu-latest
    permissions:
      id-token: write
      contents: read
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version-file: go.mod
      # Synthesis runs the AWS CDK, which needs Node.js 20 or newer.
      - uses: actions/setup-node@v4
        with:
          node-version: 22
      - name: Install the framework CLI (the version go.mod requires)
        run: |
          version="$(go list -m -f '{{.Version}}' "$FRAMEWORK_MODULE")"
          go install "$FRAMEWORK_MODULE/cli/framework@$version"
          echo "$(go env GOPATH)/bin" >> "$GITHUB_PATH"
      # The synthesis engine the CLI builds once per framework version
      # (about a minute): kept between runs.
      - uses: actions/cache@v4
        with:
          path: ~/.cache/framework/engine
          key: framework-engine-${{ runner.os }}-${{ hashFiles('go.sum') }}
      - uses: aws-actions/configure-aws-credentials@v4
        with:
          role-to-assume: ${{ vars.<% .DiffVar %> }}
          aws-region: ${{ env.AWS_REGION }}
      - name: framework diff --stage <% .DiffStage %>
        run: |
          set -o pipefail
          framework diff --stage <% .DiffStage %> 2>&1 | tee "$RUNNER_TEMP/diff.txt"
      - name: Diff in the job summary
        if: always()
        run: |
          {
            echo "### framework diff --stage <% .DiffStage %>"
            echo
            echo '` + "```" + `'
            cat "$RUNNER_TEMP/diff.txt" || echo "(no diff: see the step's log)"
            echo '` + "```" + `'
          } >> "$GITHUB_STEP_SUMMARY"

  deploy:
    if: github.event_name == 'push'
    needs: test
    runs-on: ubuntu-latest
    # One deploy of the stage at a time; a newer push waits for the running one.
    concurrency:
      group: framework-deploy-<% .Stage %>
      cancel-in-progress: false
    permissions:
      id-token: write
      contents: read
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version-file: go.mod
      - uses: actions/setup-node@v4
        with:
          node-version: 22
      - name: Install the framework CLI (the version go.mod requires)
        run: |
          version="$(go list -m -f '{{.Version}}' "$FRAMEWORK_MODULE")"
          go install "$FRAMEWORK_MODULE/cli/framework@$version"
          echo "$(go env GOPATH)/bin" >> "$GITHUB_PATH"
      # The synthesis engine the CLI builds once per framework version
      # (about a minute): kept between runs.
      - uses: actions/cache@v4
        with:
          path: ~/.cache/framework/engine
          key: framework-engine-${{ runner.os }}-${{ hashFiles('go.sum') }}
      - uses: aws-actions/configure-aws-credentials@v4
        with:
          role-to-assume: ${{ vars.<% .DeployVar %> }}
          aws-region: ${{ env.AWS_REGION }}
      # --yes accepts changes of the stack's IAM permissions and of resources
      # holding data, which nobody can confirm here: the pull request's diff
      # showed them to its reviewers.
      - name: framework deploy --stage <% .Stage %>
        run: |
          set -o pipefail
          framework deploy --stage <% .Stage %> --json --yes | tee "$RUNNER_TEMP/deploy.json"
      - name: Deploy result in the job summary
        run: |
          {
            echo "### framework deploy --stage <% .Stage %>"
            echo
            echo '` + "```json" + `'
            cat "$RUNNER_TEMP/deploy.json"
            echo '` + "```" + `'
          } >> "$GITHUB_STEP_SUMMARY"
`
