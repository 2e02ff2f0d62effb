package plan

import "fmt"

// The front matter key review says whether a task of the skill waits, at
// its end, for the conductor's approval (seeds/003's completion review):
// ReviewCompletion, or ReviewNone, the default. skillkit's own key;
// `skillkit task add --review` overrides it per task.
const (
	ReviewKey        = "review"
	ReviewNone       = "none"
	ReviewCompletion = "completion"
)

// CheckReview refuses a review value other than none or completion.
func CheckReview(v any) error {
	if v == ReviewNone || v == ReviewCompletion {
		return nil
	}
	return fmt.Errorf("review %v: want %s or %s", v, ReviewNone, ReviewCompletion)
}

// Review is the skill's review setting, ReviewNone without the key; a
// value CheckReview refuses is an error at its position.
func (s *Skill) Review() (string, error) {
	f := s.FrontMatter.Get(ReviewKey)
	if f == nil {
		return ReviewNone, nil
	}
	if err := CheckReview(f.Value); err != nil {
		return "", fmt.Errorf("%s: %w", f.ValuePos, err)
	}
	return f.Value.(string), nil
}
