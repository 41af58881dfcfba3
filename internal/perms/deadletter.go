package perms

import (
	"slices"

	"github.com/framework-dev/framework/internal/manifest"
)

// What manifest.AccessRedrive grants: on the queue's dead-letter queue,
// reading and deleting its messages, reading its attributes (how many
// messages wait there), and SQS's redrive (a message move task back to
// the queue); on the queue itself, sending (which a move task also needs
// on its destination). Consume on a queue grants nothing on its
// dead-letter queue: the handler a queue feeds gets Consume, and it has no
// business with the messages it gave up on.
var (
	redriveDLQActions   = []string{"sqs:CancelMessageMoveTask", "sqs:ChangeMessageVisibility", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:ListMessageMoveTasks", "sqs:ReceiveMessage", "sqs:StartMessageMoveTask"}
	redriveQueueActions = []string{"sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"}
)

// declareRedrive gives f manifest.AccessRedrive on the queue r: a
// statement on its dead-letter queue's ARN and one on the queue's. It
// returns the first one's index.
func (f *fnState) declareRedrive(r *manifest.Resource, why Reason) int {
	i := f.add(Statement{Sid: sid("Res", r.Name, "redrive", "dead letter"), Actions: slices.Clone(redriveDLQActions),
		Resources: []Resource{{Ref: r.Name, Attr: manifest.AttrDLQARN}}, Reasons: []Reason{why}})
	f.add(Statement{Sid: sid("Res", r.Name, "redrive", "send"), Actions: slices.Clone(redriveQueueActions),
		Resources: []Resource{{Ref: r.Name}}, Reasons: []Reason{why}})
	return i
}

// CoversDeadLetter reports whether manifest.AccessRedrive grants action on
// a queue's dead-letter queue.
func CoversDeadLetter(action string) bool {
	return slices.ContainsFunc(redriveDLQActions, func(p string) bool { return MatchAction(p, action) })
}

// deadLetterCall gives the scanned call of action on the dead-letter queue
// of queue r (made from handler) its reason on f's Redrive statement, or
// returns it as a *CeilingError when f has no Redrive that grants it.
func (f *fnState) deadLetterCall(r *manifest.Resource, action, handler string, why Reason) *CeilingError {
	i, ok := f.access[r.Name][manifest.AccessRedrive]
	if ra, perRoute := f.routeAccess[handler]; perRoute && !slices.Contains(ra[r.Name], manifest.AccessRedrive) {
		ok = false
	}
	if ok && CoversDeadLetter(action) {
		f.pol.Statements[i].Reasons = appendReason(f.pol.Statements[i].Reasons, why)
		return nil
	}
	return &CeilingError{Function: f.pol.Function, Handler: handler, Pos: why.Pos, Call: why.Call, Action: action,
		Resource: r.Name, Kind: r.Kind, DeadLetter: true, Has: f.has(r, handler), Hint: AllowHint(r, manifest.AccessRedrive, handler)}
}
