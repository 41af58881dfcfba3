// Package cfnstandin is a stand-in for AWS CloudFormation (and STS
// GetCallerIdentity) that tests reach over HTTP through the real AWS SDK for
// Go v2: point AWS_ENDPOINT_URL_CLOUDFORMATION and AWS_ENDPOINT_URL_STS (or
// the clients' BaseEndpoint) at a Server's URL.
//
// It speaks the AWS query protocol (form-encoded POST, XML responses) that
// service/cloudformation v1.82.5 and service/sts v1.51.8 use, and keeps
// state: stacks with their templates, change sets computed from template
// differences, stack events, outputs evaluated from the template's
// intrinsic functions with generated physical ids, deletion. Operations
// advance one step per DescribeStacks call, so a caller that polls sees the
// stack go through its *_IN_PROGRESS states and events appear gradually.
//
// Tests script outcomes: FailResource makes the next operation that creates
// or updates a resource fail (create → ROLLBACK_COMPLETE, update →
// UPDATE_ROLLBACK_COMPLETE), Hold keeps a stack in its in-progress state
// and Settle lets it run to the end, SetStatus forces a stack into any
// state, Throttle answers the next calls of an action with the Throttling
// error the SDK retries. It is not
// CloudFormation: it provisions nothing unless OnCreate does, and it checks
// only what deploy tools commonly get wrong (capabilities, template size,
// stack states).
package cfnstandin

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxTemplateBody is CloudFormation's limit on an inline TemplateBody, in bytes.
const MaxTemplateBody = 51200

// Resource is a resource the stand-in creates, updates or deletes; OnCreate
// and OnDelete receive it.
type Resource struct {
	StackName  string
	LogicalID  string
	Type       string
	PhysicalID string
	Properties map[string]any
}

// Server is the stand-in. Create it with New; it is an http.Handler.
type Server struct {
	// Account and Region are the account id GetCallerIdentity returns and
	// the region used in ARNs and in AWS::Region.
	Account, Region string
	// OnCreate, when set, is called as a resource is created; an error fails
	// the resource with the error's text as CloudFormation's reason.
	OnCreate func(Resource) error
	// OnDelete, when set, is called as a resource is deleted.
	OnDelete func(Resource)
	// HTTPClient fetches TemplateURL; nil uses http.DefaultClient.
	HTTPClient *http.Client
	// EventPageSize is the number of events per DescribeStackEvents page (default 100).
	EventPageSize int
	// Kept are the resources that deleted stacks kept in the account
	// (DeletionPolicy Retain), in the order they were kept.
	Kept []Resource
	// OnUpdate, when set, is called as a resource is updated in place,
	// with its new properties; an error fails the update with the error's
	// text as CloudFormation's reason.
	OnUpdate func(Resource) error

	mu         sync.Mutex
	stacks     []*stack // every stack ever created, deleted ones included
	changeSets map[string]*changeSet
	fail       map[string]string // logical id → reason, consumed by the next operation touching it
	hold       map[string]bool
	throttle   map[string]int
	calls      map[string]int
	seq        int
	now        time.Time
}

type stack struct {
	id, name     string
	status       string
	reason       string
	template     map[string]any
	templateBody string
	resources    map[string]*Resource // live resources by logical id
	capabilities []string
	tags         [][2]string
	outputs      [][3]string // key, value, description
	events       []event     // oldest first
	created      time.Time
	updated      time.Time
	pending      []func() // steps of the running operation
	lastCS       string
}

type event struct {
	id, logical, physical, typ, status, reason string
	at                                         time.Time
}

type change struct {
	Action, Logical, Physical, Type, Replacement string
	Props                                        []string // changed property names
	Recreate                                     map[string]bool
}

type changeSet struct {
	id, name, stackID, stackName, typ string
	status, execStatus, reason        string
	template                          map[string]any
	body                              string
	capabilities                      []string
	tags                              [][2]string
	changes                           []change
	described                         int
	created                           time.Time
}

// New returns a stand-in for account 123456789012 in us-east-1.
func New() *Server {
	return &Server{
		Account:    "123456789012",
		Region:     "us-east-1",
		changeSets: map[string]*changeSet{},
		fail:       map[string]string{},
		hold:       map[string]bool{},
		throttle:   map[string]int{},
		calls:      map[string]int{},
		now:        time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
}

// FailResource makes the next create or update of the resource with this
// logical id fail with reason; the stack then rolls back.
func (s *Server) FailResource(logicalID, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[logicalID] = reason
}

// Hold keeps the named stack in its current state: a running operation
// does not advance until Settle.
func (s *Server) Hold(stackName string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold[stackName] = true
}

// Settle releases the named stack and runs its running operation to the
// end, as CloudFormation goes on after a client stopped watching.
func (s *Server) Settle(stackName string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.hold, stackName)
	for st := s.live(stackName); st != nil && len(st.pending) > 0; {
		s.now = s.now.Add(time.Second)
		s.advance(st)
	}
}

// SetStatus forces the named live stack into status (for example
// UPDATE_ROLLBACK_FAILED or UPDATE_IN_PROGRESS), creating an empty stack
// when there is none, and drops any running operation.
func (s *Server) SetStatus(stackName, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.live(stackName)
	if st == nil {
		st = s.newStack(stackName)
		st.template = map[string]any{"Resources": map[string]any{}}
		st.templateBody = `{"Resources":{}}`
	}
	st.status = status
	st.pending = nil
}

// Throttle answers the next n calls of action (for example "DescribeStacks")
// with a Throttling error.
func (s *Server) Throttle(action string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.throttle[action] = n
}

// Calls returns how many requests of action the stand-in received,
// throttled ones included.
func (s *Server) Calls(action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[action]
}

// Status returns the status of the named live stack, or "" when none.
func (s *Server) Status(stackName string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.live(stackName); st != nil {
		return st.status
	}
	return ""
}

// Template returns the deployed template body of the named live stack.
func (s *Server) Template(stackName string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.live(stackName); st != nil {
		return st.templateBody
	}
	return ""
}

// ChangeSetCount returns the number of change sets that exist (created
// and neither executed nor deleted).
func (s *Server) ChangeSetCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, cs := range s.changeSets {
		if cs.execStatus != "EXECUTE_COMPLETE" {
			n++
		}
	}
	return n
}

// apiError is an error answer in the query protocol's XML shape.
type apiError struct {
	status        int
	code, message string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func validation(format string, args ...any) *apiError {
	return &apiError{400, "ValidationError", fmt.Sprintf(format, args...)}
}

// ServeHTTP answers one query protocol request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "the query protocol uses POST", http.StatusMethodNotAllowed)
		return
	}
	if err := r.ParseForm(); err != nil {
		writeError(w, &apiError{400, "MalformedQueryString", err.Error()})
		return
	}
	action := r.PostForm.Get("Action")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[action]++
	if s.throttle[action] > 0 {
		s.throttle[action]--
		writeError(w, &apiError{400, "Throttling", "Rate exceeded"})
		return
	}
	s.now = s.now.Add(time.Second)
	var (
		body string
		err  *apiError
	)
	f := form(r.PostForm)
	switch action {
	case "GetCallerIdentity":
		body = fmt.Sprintf("<Arn>arn:aws:iam::%s:user/standin</Arn><UserId>AIDASTANDIN</UserId><Account>%s</Account>", s.Account, s.Account)
		writeResult(w, action, "https://sts.amazonaws.com/doc/2011-06-15/", body)
		return
	case "CreateChangeSet":
		body, err = s.createChangeSet(f)
	case "DescribeChangeSet":
		body, err = s.describeChangeSet(f)
	case "ExecuteChangeSet":
		body, err = s.executeChangeSet(f)
	case "DeleteChangeSet":
		body, err = s.deleteChangeSet(f)
	case "DescribeStacks":
		body, err = s.describeStacks(f)
	case "DescribeStackEvents":
		body, err = s.describeStackEvents(f)
	case "GetTemplate":
		body, err = s.getTemplate(f)
	case "DeleteStack":
		body, err = s.deleteStack(f)
	case "ListStackResources":
		body, err = s.listStackResources(f)
	case "ListStacks":
		body, err = s.listStacks(f)
	default:
		err = &apiError{400, "InvalidAction", fmt.Sprintf("the CloudFormation stand-in does not implement %q", action)}
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeResult(w, action, "http://cloudformation.amazonaws.com/doc/2010-05-15/", body)
}

type form map[string][]string

func (f form) get(k string) string {
	if v := f[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// list reads a query protocol list: Name.member.1, Name.member.2, ...
func (f form) list(name string) []string {
	var out []string
	for i := 1; ; i++ {
		v, ok := f[name+".member."+strconv.Itoa(i)]
		if !ok {
			return out
		}
		out = append(out, v[0])
	}
}

func (f form) tags() [][2]string {
	var out [][2]string
	for i := 1; ; i++ {
		p := "Tags.member." + strconv.Itoa(i)
		if _, ok := f[p+".Key"]; !ok {
			return out
		}
		out = append(out, [2]string{f.get(p + ".Key"), f.get(p + ".Value")})
	}
}

func writeResult(w http.ResponseWriter, action, ns, body string) {
	id := newID()
	send(w, http.StatusOK, id, fmt.Sprintf(`<%sResponse xmlns="%s"><%sResult>%s</%sResult><ResponseMetadata><RequestId>%s</RequestId></ResponseMetadata></%sResponse>`,
		action, ns, action, body, action, id, action))
}

func writeError(w http.ResponseWriter, e *apiError) {
	id := newID()
	send(w, e.status, id, fmt.Sprintf(`<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>%s</RequestId></ErrorResponse>`,
		esc(e.code), esc(e.message), id))
}

// send writes a whole response with its length, as AWS does.
func send(w http.ResponseWriter, status int, requestID, body string) {
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("X-Amzn-Requestid", requestID)
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// esc escapes s for XML text and attributes, a carriage return included
// (XML parsers would turn a literal one into a newline).
var esc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;", "\r", "&#xD;").Replace

func el(name, value string) string {
	if value == "" {
		return ""
	}
	return "<" + name + ">" + esc(value) + "</" + name + ">"
}

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// live returns the stack named (or with the id) ref that is not deleted.
func (s *Server) live(ref string) *stack {
	for _, st := range s.stacks {
		if (st.name == ref || st.id == ref) && st.status != "DELETE_COMPLETE" {
			return st
		}
	}
	return nil
}

// find returns the stack with id ref (deleted included) or the live stack named ref.
func (s *Server) find(ref string) *stack {
	for _, st := range s.stacks {
		if st.id == ref {
			return st
		}
	}
	return s.live(ref)
}

func (s *Server) newStack(name string) *stack {
	st := &stack{
		id:        fmt.Sprintf("arn:aws:cloudformation:%s:%s:stack/%s/%s", s.Region, s.Account, name, newID()),
		name:      name,
		resources: map[string]*Resource{},
		created:   s.now,
	}
	s.stacks = append(s.stacks, st)
	return st
}

func notExist(ref string) *apiError {
	return validation("Stack with id %s does not exist", ref)
}

func (s *Server) createChangeSet(f form) (string, *apiError) {
	name, csName, typ := f.get("StackName"), f.get("ChangeSetName"), f.get("ChangeSetType")
	if name == "" || csName == "" {
		return "", validation("StackName and ChangeSetName are required")
	}
	if typ == "" {
		typ = "UPDATE"
	}
	body := f.get("TemplateBody")
	if body == "" && f.get("TemplateURL") != "" {
		var err error
		if body, err = s.fetch(f.get("TemplateURL")); err != nil {
			return "", validation("TemplateURL must be a supported URL: %v", err)
		}
	} else if len(body) > MaxTemplateBody {
		return "", validation("1 validation error detected: Value at 'templateBody' failed to satisfy constraint: Member must have length less than or equal to %d", MaxTemplateBody)
	}
	if body == "" {
		return "", validation("Either Template URL or Template Body must be specified.")
	}
	var tpl map[string]any
	if err := json.Unmarshal([]byte(body), &tpl); err != nil {
		return "", validation("Template format error: JSON not well-formed. (%v)", err)
	}
	res, _ := tpl["Resources"].(map[string]any)
	if len(res) == 0 {
		return "", validation("Template format error: At least one Resources member must be defined.")
	}
	caps := f.list("Capabilities")
	if need := requiredCapability(res); need != "" && !contains(caps, need) && !(need == "CAPABILITY_IAM" && contains(caps, "CAPABILITY_NAMED_IAM")) {
		return "", &apiError{400, "InsufficientCapabilitiesException", fmt.Sprintf("Requires capabilities : [%s]", need)}
	}
	st := s.live(name)
	switch typ {
	case "CREATE":
		if st != nil && st.status != "REVIEW_IN_PROGRESS" {
			return "", &apiError{400, "AlreadyExistsException", fmt.Sprintf("Stack [%s] already exists and cannot be created again with the changeSet [%s].", name, csName)}
		}
		if st == nil {
			st = s.newStack(name)
			st.status = "REVIEW_IN_PROGRESS"
			st.reason = "User Initiated"
			st.template = map[string]any{"Resources": map[string]any{}}
			s.addEvent(st, st.name, st.id, "AWS::CloudFormation::Stack", "REVIEW_IN_PROGRESS", "User Initiated")
		}
	case "UPDATE":
		if st == nil || st.status == "REVIEW_IN_PROGRESS" {
			return "", validation("Stack [%s] does not exist", name)
		}
		if strings.HasSuffix(st.status, "_IN_PROGRESS") || st.status == "ROLLBACK_COMPLETE" || strings.HasSuffix(st.status, "_FAILED") {
			return "", validation("Stack:%s is in %s state and can not be updated.", st.id, st.status)
		}
	default:
		return "", validation("ChangeSetType must be CREATE or UPDATE, not %s", typ)
	}
	for _, cs := range s.changeSets {
		if cs.stackID == st.id && cs.name == csName {
			return "", &apiError{400, "AlreadyExistsException", fmt.Sprintf("ChangeSet [%s] already exists", csName)}
		}
	}
	cs := &changeSet{
		id:   fmt.Sprintf("arn:aws:cloudformation:%s:%s:changeSet/%s/%s", s.Region, s.Account, csName, newID()),
		name: csName, stackID: st.id, stackName: st.name, typ: typ,
		status: "CREATE_PENDING", execStatus: "UNAVAILABLE",
		template: tpl, body: body, capabilities: caps, tags: f.tags(), created: s.now,
	}
	cs.changes = diffResources(st, tpl)
	s.changeSets[cs.id] = cs
	return el("Id", cs.id) + el("StackId", st.id), nil
}

func (s *Server) fetch(url string) (string, error) {
	c := s.HTTPClient
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(b), nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// requiredCapability returns the capability CloudFormation requires for
// the resources: CAPABILITY_NAMED_IAM for IAM resources with custom names,
// CAPABILITY_IAM for other IAM resources, "" for none.
func requiredCapability(res map[string]any) string {
	need := ""
	for _, v := range res {
		r, _ := v.(map[string]any)
		typ, _ := r["Type"].(string)
		if !strings.HasPrefix(typ, "AWS::IAM::") {
			continue
		}
		props, _ := r["Properties"].(map[string]any)
		for _, k := range []string{"RoleName", "UserName", "GroupName", "ManagedPolicyName", "InstanceProfileName"} {
			if _, ok := props[k]; ok {
				return "CAPABILITY_NAMED_IAM"
			}
		}
		need = "CAPABILITY_IAM"
	}
	return need
}

// recreate lists, per resource type, the properties whose change makes
// CloudFormation replace the resource (a plausible subset of the
// CloudFormation resource reference).
var recreate = map[string][]string{
	"AWS::IAM::Role":              {"RoleName", "Path"},
	"AWS::Lambda::Function":       {"FunctionName", "PackageType"},
	"AWS::S3::Bucket":             {"BucketName"},
	"AWS::ApiGateway::Stage":      {"StageName", "RestApiId"},
	"AWS::ApiGateway::Deployment": {"RestApiId", "Description", "StageName"},
	"AWS::Lambda::Permission":     {"FunctionName", "Principal", "SourceArn", "Action"},
	"AWS::ApiGateway::ApiKey":     {"Name"},
	// The resources an app declares (issue 21): what replaces them.
	"AWS::DynamoDB::Table":        {"KeySchema", "TableName"},
	"AWS::SQS::Queue":             {"QueueName", "FifoQueue"},
	"AWS::SNS::Topic":             {"TopicName", "FifoTopic"},
	"AWS::SecretsManager::Secret": {"Name"},
	"AWS::SSM::Parameter":         {"Name"},
}

func resourcesOf(tpl map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	res, _ := tpl["Resources"].(map[string]any)
	for k, v := range res {
		r, _ := v.(map[string]any)
		out[k] = r
	}
	return out
}

func diffResources(st *stack, tpl map[string]any) []change {
	old, neu := resourcesOf(st.template), resourcesOf(tpl)
	var out []change
	for _, k := range slices.Sorted(maps.Keys(neu)) {
		typ, _ := neu[k]["Type"].(string)
		o, ok := old[k]
		if !ok {
			out = append(out, change{Action: "Add", Logical: k, Type: typ})
			continue
		}
		oj, _ := json.Marshal(o)
		nj, _ := json.Marshal(neu[k])
		if string(oj) == string(nj) {
			continue
		}
		c := change{Action: "Modify", Logical: k, Type: typ, Replacement: "False", Recreate: map[string]bool{}}
		if r := st.resources[k]; r != nil {
			c.Physical = r.PhysicalID
		}
		op, _ := o["Properties"].(map[string]any)
		np, _ := neu[k]["Properties"].(map[string]any)
		names := map[string]bool{}
		for n := range op {
			names[n] = true
		}
		for n := range np {
			names[n] = true
		}
		for _, n := range slices.Sorted(maps.Keys(names)) {
			a, _ := json.Marshal(op[n])
			b, _ := json.Marshal(np[n])
			if string(a) != string(b) {
				c.Props = append(c.Props, n)
				if contains(recreate[typ], n) {
					c.Recreate[n] = true
					c.Replacement = "True"
				}
			}
		}
		if oldTyp, _ := o["Type"].(string); oldTyp != typ {
			c.Replacement = "True"
		}
		out = append(out, c)
	}
	for _, k := range slices.Sorted(maps.Keys(old)) {
		if _, ok := neu[k]; !ok {
			typ, _ := old[k]["Type"].(string)
			c := change{Action: "Remove", Logical: k, Type: typ}
			if r := st.resources[k]; r != nil {
				c.Physical = r.PhysicalID
			}
			out = append(out, c)
		}
	}
	return out
}

func (s *Server) changeSetRef(f form) (*changeSet, *apiError) {
	ref, stackRef := f.get("ChangeSetName"), f.get("StackName")
	if cs, ok := s.changeSets[ref]; ok {
		return cs, nil
	}
	for _, cs := range s.changeSets {
		if cs.name == ref && (cs.stackName == stackRef || cs.stackID == stackRef) {
			return cs, nil
		}
	}
	return nil, &apiError{404, "ChangeSetNotFound", fmt.Sprintf("ChangeSet [%s] does not exist", ref)}
}

func (s *Server) describeChangeSet(f form) (string, *apiError) {
	cs, err := s.changeSetRef(f)
	if err != nil {
		return "", err
	}
	// The first description finds it being created, the next one done.
	cs.described++
	if cs.status == "CREATE_PENDING" {
		cs.status = "CREATE_IN_PROGRESS"
	} else if cs.status == "CREATE_IN_PROGRESS" {
		if len(cs.changes) == 0 {
			cs.status = "FAILED"
			cs.reason = "The submitted information didn't contain changes. Submit different information to create a change set."
		} else {
			cs.status = "CREATE_COMPLETE"
			cs.execStatus = "AVAILABLE"
		}
	}
	var b strings.Builder
	b.WriteString(el("ChangeSetName", cs.name) + el("ChangeSetId", cs.id) + el("StackId", cs.stackID) + el("StackName", cs.stackName))
	b.WriteString(el("Status", cs.status) + el("ExecutionStatus", cs.execStatus) + el("StatusReason", cs.reason) + el("CreationTime", ts(cs.created)))
	b.WriteString("<Capabilities>")
	for _, c := range cs.capabilities {
		b.WriteString(el("member", c))
	}
	b.WriteString("</Capabilities><Changes>")
	if cs.status == "CREATE_COMPLETE" {
		for _, c := range cs.changes {
			b.WriteString("<member><Type>Resource</Type><ResourceChange>")
			b.WriteString(el("Action", c.Action) + el("LogicalResourceId", c.Logical) + el("PhysicalResourceId", c.Physical) + el("ResourceType", c.Type) + el("Replacement", c.Replacement))
			if c.Action == "Modify" {
				b.WriteString("<Scope><member>Properties</member></Scope><Details>")
				for _, p := range c.Props {
					rr := "Never"
					if c.Recreate[p] {
						rr = "Always"
					}
					b.WriteString("<member><Target><Attribute>Properties</Attribute>" + el("Name", p) + el("RequiresRecreation", rr) + "</Target><Evaluation>Static</Evaluation><ChangeSource>DirectModification</ChangeSource></member>")
				}
				b.WriteString("</Details>")
			}
			b.WriteString("</ResourceChange></member>")
		}
	}
	b.WriteString("</Changes>")
	return b.String(), nil
}

func (s *Server) deleteChangeSet(f form) (string, *apiError) {
	cs, err := s.changeSetRef(f)
	if err != nil {
		return "", err
	}
	if cs.execStatus == "EXECUTE_IN_PROGRESS" || cs.execStatus == "EXECUTE_COMPLETE" {
		return "", &apiError{400, "InvalidChangeSetStatus", fmt.Sprintf("Cannot delete ChangeSet %s in status %s", cs.id, cs.execStatus)}
	}
	delete(s.changeSets, cs.id)
	return "", nil
}

func (s *Server) executeChangeSet(f form) (string, *apiError) {
	cs, err := s.changeSetRef(f)
	if err != nil {
		return "", err
	}
	if cs.execStatus != "AVAILABLE" {
		return "", &apiError{400, "InvalidChangeSetStatus", fmt.Sprintf("ChangeSet [%s] cannot be executed in its current execution status of [%s]", cs.id, cs.execStatus)}
	}
	st := s.find(cs.stackID)
	if st == nil || st.status == "DELETE_COMPLETE" {
		return "", notExist(cs.stackName)
	}
	cs.execStatus = "EXECUTE_COMPLETE"
	// Executing a change set removes the stack's other change sets.
	for id, o := range s.changeSets {
		if o.stackID == st.id && o != cs {
			delete(s.changeSets, id)
		}
	}
	delete(s.changeSets, cs.id)
	st.capabilities = cs.capabilities
	st.tags = cs.tags
	st.lastCS = cs.id
	if cs.typ == "CREATE" {
		s.planCreate(st, cs)
	} else {
		s.planUpdate(st, cs)
	}
	return "", nil
}

func (s *Server) addEvent(st *stack, logical, physical, typ, status, reason string) {
	s.seq++
	st.events = append(st.events, event{
		id: fmt.Sprintf("%s-%s-%d", logical, status, s.seq), logical: logical, physical: physical,
		typ: typ, status: status, reason: reason, at: s.now,
	})
}

func (s *Server) stackStatus(st *stack, status, reason string) {
	st.status, st.reason = status, reason
	s.addEvent(st, st.name, st.id, "AWS::CloudFormation::Stack", status, reason)
}

// takeFailure returns the scripted failure for a logical id, consuming it.
func (s *Server) takeFailure(logical string) (string, bool) {
	r, ok := s.fail[logical]
	if ok {
		delete(s.fail, logical)
	}
	return r, ok
}

func (s *Server) createResource(st *stack, logical string, def map[string]any) error {
	typ, _ := def["Type"].(string)
	props, _ := def["Properties"].(map[string]any)
	r := &Resource{StackName: st.name, LogicalID: logical, Type: typ, Properties: props, PhysicalID: physicalID(st, logical, typ, props)}
	if reason, ok := s.takeFailure(logical); ok {
		return fmt.Errorf("%s", reason)
	}
	if id, ok := s.namedPhysicalID(st, typ, props); ok {
		r.PhysicalID = id
	}
	if err := s.checkTrigger(st, typ, props); err != nil {
		return err
	}
	if err := s.checkResource(st, r); err != nil {
		return err
	}
	if s.OnCreate != nil {
		if err := s.OnCreate(*r); err != nil {
			return err
		}
	}
	st.resources[logical] = r
	return nil
}

func (s *Server) deleteResource(st *stack, logical string) {
	r := st.resources[logical]
	if r == nil {
		return
	}
	delete(st.resources, logical)
	if s.OnDelete != nil {
		s.OnDelete(*r)
	}
}

func physicalID(st *stack, logical, typ string, props map[string]any) string {
	for _, k := range []string{"BucketName", "RoleName", "FunctionName"} {
		if v, ok := props[k].(string); ok {
			return v
		}
	}
	if id := triggerPhysicalID(st, logical, typ, props); id != "" {
		return id
	}
	switch typ {
	case "AWS::ApiGateway::RestApi", "AWS::ApiGateway::Deployment", "AWS::ApiGateway::ApiKey":
		return strings.ToLower(strings.ReplaceAll(newID(), "-", "")[:10])
	case "AWS::ApiGateway::Stage":
		if v, ok := props["StageName"].(string); ok {
			return v
		}
	}
	suffix := strings.ToUpper(strings.ReplaceAll(newID(), "-", "")[:12])
	name := st.name + "-" + logical
	if len(name) > 50 {
		name = name[:50]
	}
	if id := declaredPhysicalID(st, typ, logical, name+"-"+suffix, props); id != "" {
		return id
	}
	return name + "-" + suffix
}

// planCreate queues the steps of a stack creation: one resource per step,
// in template order (sorted logical ids, DependsOn first), then the
// outcome.
func (s *Server) planCreate(st *stack, cs *changeSet) {
	res := resourcesOf(cs.template)
	order := createOrder(res)
	s.stackStatus(st, "CREATE_IN_PROGRESS", "User Initiated")
	st.template, st.templateBody = cs.template, cs.body
	var done []string
	for _, logical := range order {
		logical := logical
		def := res[logical]
		typ, _ := def["Type"].(string)
		st.pending = append(st.pending, func() {
			s.addEvent(st, logical, "", typ, "CREATE_IN_PROGRESS", "")
			if err := s.createResource(st, logical, def); err != nil {
				s.addEvent(st, logical, "", typ, "CREATE_FAILED", err.Error())
				s.rollbackCreate(st, logical, done, res)
				return
			}
			// As CloudFormation does: a second CREATE_IN_PROGRESS once the
			// resource has its physical id.
			s.addEvent(st, logical, st.resources[logical].PhysicalID, typ, "CREATE_IN_PROGRESS", "Resource creation Initiated")
			done = append(done, logical)
			s.addEvent(st, logical, st.resources[logical].PhysicalID, typ, "CREATE_COMPLETE", "")
			if len(done) == len(order) {
				st.pending = append(st.pending, func() {
					s.setOutputs(st)
					s.stackStatus(st, "CREATE_COMPLETE", "")
				})
			}
		})
	}
}

func (s *Server) rollbackCreate(st *stack, failed string, done []string, res map[string]map[string]any) {
	st.pending = nil
	s.stackStatus(st, "ROLLBACK_IN_PROGRESS", fmt.Sprintf("The following resource(s) failed to create: [%s]. Rollback requested by user.", failed))
	for i := len(done) - 1; i >= 0; i-- {
		logical := done[i]
		typ, _ := res[logical]["Type"].(string)
		st.pending = append(st.pending, func() {
			phys := st.resources[logical].PhysicalID
			s.addEvent(st, logical, phys, typ, "DELETE_IN_PROGRESS", "")
			s.deleteResource(st, logical)
			s.addEvent(st, logical, phys, typ, "DELETE_COMPLETE", "")
		})
	}
	st.pending = append(st.pending, func() {
		st.outputs = nil
		s.stackStatus(st, "ROLLBACK_COMPLETE", "")
	})
}

func createOrder(res map[string]map[string]any) []string {
	var order []string
	placed := map[string]bool{}
	var place func(k string, depth int)
	place = func(k string, depth int) {
		if placed[k] || depth > len(res) {
			return
		}
		for _, d := range dependsOn(res[k]) {
			if _, ok := res[d]; ok {
				place(d, depth+1)
			}
		}
		if !placed[k] {
			placed[k] = true
			order = append(order, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(res)) {
		place(k, 0)
	}
	return order
}

// dependsOn returns DependsOn plus the resources a definition refers to
// with Ref and Fn::GetAtt.
func dependsOn(def map[string]any) []string {
	var out []string
	switch d := def["DependsOn"].(type) {
	case string:
		out = append(out, d)
	case []any:
		for _, v := range d {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if r, ok := t["Ref"].(string); ok && len(t) == 1 {
				out = append(out, r)
			}
			if ga, ok := t["Fn::GetAtt"].([]any); ok && len(ga) > 0 {
				if r, ok := ga[0].(string); ok {
					out = append(out, r)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(t)) {
				walk(t[k])
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(def["Properties"])
	return out
}

// planUpdate queues the steps of an update: changed and added resources
// one per step, then the cleanup of removed ones, or a rollback.
func (s *Server) planUpdate(st *stack, cs *changeSet) {
	oldTpl, oldBody := st.template, st.templateBody
	oldRes := resourcesOf(oldTpl)
	newRes := resourcesOf(cs.template)
	oldLive := map[string]*Resource{}
	for k, r := range st.resources {
		c := *r
		oldLive[k] = &c
	}
	s.stackStatus(st, "UPDATE_IN_PROGRESS", "User Initiated")
	var touched []change
	var work []change
	for _, c := range cs.changes {
		if c.Action != "Remove" {
			work = append(work, c)
		}
	}
	for i, c := range work {
		c := c
		last := i == len(work)-1
		st.pending = append(st.pending, func() {
			def := newRes[c.Logical]
			var err error
			if c.Action == "Add" {
				s.addEvent(st, c.Logical, "", c.Type, "CREATE_IN_PROGRESS", "")
				err = s.createResource(st, c.Logical, def)
			} else {
				s.addEvent(st, c.Logical, c.Physical, c.Type, "UPDATE_IN_PROGRESS", "")
				if reason, ok := s.takeFailure(c.Logical); ok {
					err = fmt.Errorf("%s", reason)
				} else if r := st.resources[c.Logical]; r != nil {
					r.Properties, _ = def["Properties"].(map[string]any)
					if c.Replacement == "True" {
						r.PhysicalID = physicalID(st, c.Logical, c.Type, r.Properties)
					}
					if s.OnUpdate != nil {
						err = s.OnUpdate(*r)
					}
				}
			}
			verb := "UPDATE"
			if c.Action == "Add" {
				verb = "CREATE"
			}
			if err != nil {
				s.addEvent(st, c.Logical, c.Physical, c.Type, verb+"_FAILED", err.Error())
				s.rollbackUpdate(st, c.Logical, touched, oldTpl, oldBody, oldRes, oldLive)
				return
			}
			touched = append(touched, c)
			if c.Action == "Add" {
				s.addEvent(st, c.Logical, st.resources[c.Logical].PhysicalID, c.Type, "CREATE_IN_PROGRESS", "Resource creation Initiated")
			}
			s.addEvent(st, c.Logical, st.resources[c.Logical].PhysicalID, c.Type, verb+"_COMPLETE", "")
			if last {
				s.finishUpdate(st, cs)
			}
		})
	}
	if len(work) == 0 {
		st.pending = append(st.pending, func() { s.finishUpdate(st, cs) })
	}
}

func (s *Server) finishUpdate(st *stack, cs *changeSet) {
	st.template, st.templateBody = cs.template, cs.body
	st.updated = s.now
	var removed []change
	for _, c := range cs.changes {
		if c.Action == "Remove" {
			removed = append(removed, c)
		}
	}
	st.pending = append(st.pending, func() {
		s.stackStatus(st, "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", "")
		for _, c := range removed {
			s.addEvent(st, c.Logical, c.Physical, c.Type, "DELETE_IN_PROGRESS", "")
			s.deleteResource(st, c.Logical)
			s.addEvent(st, c.Logical, c.Physical, c.Type, "DELETE_COMPLETE", "")
		}
	}, func() {
		s.setOutputs(st)
		s.stackStatus(st, "UPDATE_COMPLETE", "")
	})
}

func (s *Server) rollbackUpdate(st *stack, failed string, touched []change, oldTpl map[string]any, oldBody string, oldRes map[string]map[string]any, oldLive map[string]*Resource) {
	st.pending = nil
	s.stackStatus(st, "UPDATE_ROLLBACK_IN_PROGRESS", fmt.Sprintf("The following resource(s) failed to update: [%s].", failed))
	for i := len(touched) - 1; i >= 0; i-- {
		c := touched[i]
		st.pending = append(st.pending, func() {
			if c.Action == "Add" {
				return // deleted in the cleanup
			}
			s.addEvent(st, c.Logical, c.Physical, c.Type, "UPDATE_IN_PROGRESS", "")
			st.resources[c.Logical] = oldLive[c.Logical]
			s.addEvent(st, c.Logical, c.Physical, c.Type, "UPDATE_COMPLETE", "")
		})
	}
	st.pending = append(st.pending, func() {
		s.stackStatus(st, "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", "")
		for _, c := range touched {
			if c.Action == "Add" {
				phys := st.resources[c.Logical].PhysicalID
				s.addEvent(st, c.Logical, phys, c.Type, "DELETE_IN_PROGRESS", "")
				s.deleteResource(st, c.Logical)
				s.addEvent(st, c.Logical, phys, c.Type, "DELETE_COMPLETE", "")
			}
		}
		_ = oldRes
	}, func() {
		st.template, st.templateBody = oldTpl, oldBody
		s.stackStatus(st, "UPDATE_ROLLBACK_COMPLETE", "")
	})
}

// advance runs the next step of the stack's running operation.
func (s *Server) advance(st *stack) {
	if s.hold[st.name] || len(st.pending) == 0 {
		return
	}
	step := st.pending[0]
	st.pending = st.pending[1:]
	step()
}

func (s *Server) describeStacks(f form) (string, *apiError) {
	ref := f.get("StackName")
	var list []*stack
	if ref == "" {
		for _, st := range s.stacks {
			if st.status != "DELETE_COMPLETE" {
				list = append(list, st)
			}
		}
	} else {
		st := s.find(ref)
		if st == nil {
			return "", notExist(ref)
		}
		list = []*stack{st}
	}
	var b strings.Builder
	b.WriteString("<Stacks>")
	for _, st := range list {
		s.advance(st)
		b.WriteString("<member>")
		b.WriteString(el("StackId", st.id) + el("StackName", st.name) + el("ChangeSetId", st.lastCS) + el("CreationTime", ts(st.created)))
		if !st.updated.IsZero() {
			b.WriteString(el("LastUpdatedTime", ts(st.updated)))
		}
		b.WriteString(el("StackStatus", st.status) + el("StackStatusReason", st.reason))
		b.WriteString("<DisableRollback>false</DisableRollback><Capabilities>")
		for _, c := range st.capabilities {
			b.WriteString(el("member", c))
		}
		b.WriteString("</Capabilities><Outputs>")
		for _, o := range st.outputs {
			b.WriteString("<member>" + el("OutputKey", o[0]) + el("OutputValue", o[1]) + el("Description", o[2]) + "</member>")
		}
		b.WriteString("</Outputs><Tags>")
		for _, t := range st.tags {
			b.WriteString("<member>" + el("Key", t[0]) + el("Value", t[1]) + "</member>")
		}
		b.WriteString("</Tags></member>")
	}
	b.WriteString("</Stacks>")
	return b.String(), nil
}

func (s *Server) describeStackEvents(f form) (string, *apiError) {
	ref := f.get("StackName")
	st := s.find(ref)
	if st == nil {
		return "", notExist(ref)
	}
	size := s.EventPageSize
	if size <= 0 {
		size = 100
	}
	start := 0
	if tok := f.get("NextToken"); tok != "" {
		n, err := strconv.Atoi(tok)
		if err != nil {
			return "", validation("invalid NextToken %q", tok)
		}
		start = n
	}
	var b strings.Builder
	b.WriteString("<StackEvents>")
	n := 0
	for i := len(st.events) - 1 - start; i >= 0 && n < size; i-- {
		e := st.events[i]
		b.WriteString("<member>" + el("StackId", st.id) + el("EventId", e.id) + el("StackName", st.name) + el("LogicalResourceId", e.logical) +
			el("PhysicalResourceId", e.physical) + el("ResourceType", e.typ) + el("Timestamp", ts(e.at)) + el("ResourceStatus", e.status) +
			el("ResourceStatusReason", e.reason) + "</member>")
		n++
	}
	b.WriteString("</StackEvents>")
	if start+n < len(st.events) {
		b.WriteString(el("NextToken", strconv.Itoa(start+n)))
	}
	return b.String(), nil
}

func (s *Server) getTemplate(f form) (string, *apiError) {
	if f.get("ChangeSetName") != "" {
		cs, err := s.changeSetRef(f)
		if err != nil {
			return "", err
		}
		return el("TemplateBody", cs.body) + "<StagesAvailable><member>Original</member></StagesAvailable>", nil
	}
	ref := f.get("StackName")
	st := s.find(ref)
	if st == nil {
		return "", notExist(ref)
	}
	return el("TemplateBody", st.templateBody) + "<StagesAvailable><member>Original</member><member>Processed</member></StagesAvailable>", nil
}

func (s *Server) deleteStack(f form) (string, *apiError) {
	ref := f.get("StackName")
	st := s.live(ref)
	if st == nil || st.status == "DELETE_IN_PROGRESS" {
		return "", nil // deleting what does not exist succeeds, as CloudFormation's does
	}
	if strings.HasSuffix(st.status, "_IN_PROGRESS") && st.status != "REVIEW_IN_PROGRESS" {
		return "", validation("Stack [%s] cannot be deleted while in status %s", st.name, st.status)
	}
	for id, cs := range s.changeSets {
		if cs.stackID == st.id {
			delete(s.changeSets, id)
		}
	}
	st.pending = nil
	s.stackStatus(st, "DELETE_IN_PROGRESS", "User Initiated")
	res := resourcesOf(st.template)
	order := createOrder(res)
	for i := len(order) - 1; i >= 0; i-- {
		logical := order[i]
		r := st.resources[logical]
		if r == nil {
			continue
		}
		if retained(res[logical]) {
			// As CloudFormation does: the resource stays in the account.
			st.pending = append(st.pending, func() {
				delete(st.resources, logical)
				s.Kept = append(s.Kept, *r)
				s.addEvent(st, logical, r.PhysicalID, r.Type, "DELETE_SKIPPED", "")
			})
			continue
		}
		st.pending = append(st.pending, func() {
			s.addEvent(st, logical, r.PhysicalID, r.Type, "DELETE_IN_PROGRESS", "")
			s.deleteResource(st, logical)
			s.addEvent(st, logical, r.PhysicalID, r.Type, "DELETE_COMPLETE", "")
		})
	}
	st.pending = append(st.pending, func() {
		st.outputs, st.updated = nil, s.now
		s.stackStatus(st, "DELETE_COMPLETE", "")
	})
	return "", nil
}
