// Package books is the bookstore's catalogue: a route group (blueprint)
// declared in its own package, which the app registers under a prefix.
package books

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/framework-dev/framework/framework"
)

// Book is a book of the catalogue.
type Book struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Author string   `json:"author"`
	Year   int      `json:"year"`
	Tags   []string `json:"tags,omitempty"`
}

// NewBook is the body of POST /books: title, author and year are
// required, tags are optional.
type NewBook struct {
	Title  string   `json:"title"`
	Author string   `json:"author"`
	Year   int      `json:"year"`
	Tags   []string `json:"tags,omitempty"`
}

// Validate checks what the types cannot say.
func (b NewBook) Validate() error {
	switch {
	case strings.TrimSpace(b.Title) == "":
		return errors.New(`field "title" is empty`)
	case b.Year < 1450 || b.Year > 2100:
		return fmt.Errorf(`field "year" is %d: give a year between 1450 and 2100`, b.Year)
	}
	return nil
}

// BookPatch is the body of PATCH /books/{id}: every field is optional.
type BookPatch struct {
	Title *string  `json:"title"`
	Year  *int     `json:"year"`
	Tags  []string `json:"tags,omitempty"`
}

// BookList is the answer of GET /books.
type BookList struct {
	Books []Book `json:"books"`
	Count int    `json:"count"`
}

// Store keeps the catalogue in memory.
type Store struct {
	mu    sync.Mutex
	next  int
	books map[string]Book
}

// NewStore returns a store holding one book.
func NewStore() *Store {
	s := &Store{books: map[string]Book{}}
	s.add(NewBook{Title: "The Go Programming Language", Author: "Donovan, Kernighan", Year: 2015, Tags: []string{"go"}})
	return s
}

// Len returns the number of books.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.books)
}

func (s *Store) add(in NewBook) Book {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	b := Book{ID: strconv.Itoa(s.next), Title: in.Title, Author: in.Author, Year: in.Year, Tags: in.Tags}
	s.books[b.ID] = b
	return b
}

// Routes returns the catalogue's route group: list, get, create, patch
// and delete, the last three behind the group's own middleware auth.
func Routes(s *Store) *framework.Group {
	g := framework.NewGroup("books")
	g.Route("/", func(r *framework.Request) (BookList, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		list := BookList{Books: []Book{}}
		for _, b := range s.books {
			list.Books = append(list.Books, b)
		}
		slices.SortFunc(list.Books, func(a, b Book) int { return strings.Compare(a.ID, b.ID) })
		list.Count = len(list.Books)
		return list, nil
	}, framework.Name("list"))
	g.Route("/{id}", func(r *framework.Request, id string) (Book, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		b, ok := s.books[id]
		if !ok {
			return Book{}, framework.NotFoundError{Message: "no book " + id}
		}
		return b, nil
	}, framework.Name("get"))
	g.Route("/", func(r *framework.Request, in NewBook) (Book, error) {
		return s.add(in), nil
	}, framework.Methods("POST"), framework.Status(201), framework.Name("create"), framework.WithMiddleware(requireEditor))
	g.Route("/{id}", func(r *framework.Request, id string, in BookPatch) (Book, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		b, ok := s.books[id]
		if !ok {
			return Book{}, framework.NotFoundError{Message: "no book " + id}
		}
		if in.Title != nil {
			b.Title = *in.Title
		}
		if in.Year != nil {
			b.Year = *in.Year
		}
		if in.Tags != nil {
			b.Tags = in.Tags
		}
		s.books[id] = b
		return b, nil
	}, framework.Methods("PATCH"), framework.Name("patch"), framework.WithMiddleware(requireEditor))
	g.Route("/{id}", func(r *framework.Request, id string) (*framework.Response, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.books[id]; !ok {
			return nil, framework.NotFoundError{Message: "no book " + id}
		}
		delete(s.books, id)
		return &framework.Response{StatusCode: 204}, nil
	}, framework.Methods("DELETE"), framework.Name("delete"), framework.APIKeyRequired())
	return g
}

// requireEditor answers 401 unless the request says who edits: an early
// answer from middleware, before the body is even decoded.
func requireEditor(c *framework.Call, next framework.Next) (*framework.Response, error) {
	if c.Request.Headers.Get("X-Editor") == "" {
		return nil, framework.UnauthorizedError{Message: "send the X-Editor header to change the catalogue"}
	}
	return next(c)
}
